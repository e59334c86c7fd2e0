#pragma once
// Text from a capture (plane, module, host names, error messages) is data, not markup: before it reaches a
// terminal, a JSON file or a window title it is made safe here.

#include <string>
#include <string_view>

namespace oomscope {

// Invalid UTF-8 replaced by U+FFFD (one per bad byte); valid text comes back unchanged.
std::string valid_utf8(std::string_view text);

// For a terminal: invalid UTF-8 bytes and control characters (C0 but newline and tab, DEL, C1, and the
// Unicode bidirectional overrides that reorder what is shown) written as visible escapes: "\x1b",
// "\u{202e}". A crafted name can then neither retitle nor clear the terminal nor hide text.
std::string terminal_safe(std::string_view text);

// The same for one name shown on one line (a window title, a tooltip, a table cell): newline and tab are
// escaped too.
std::string single_line_safe(std::string_view text);

}  // namespace oomscope
