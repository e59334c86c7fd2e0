#pragma once
// The one way the text reports line up a column: a cell padded with spaces on the right.

#include <cstddef>
#include <string>

namespace oomscope {

// `s` padded on the right with spaces to `width` characters (bytes); a longer `s` is kept whole, so the
// column it starts moves right rather than lose part of a name.
std::string pad_right(std::string s, std::size_t width);

}  // namespace oomscope
