#pragma once
// Every string that comes from a file or an agent (module, instruction, allocator, frame and host names,
// commands, error and event messages) reaches a widget through one of these: control characters, the
// Unicode bidirectional controls that reorder what is shown (U+202A-U+202E, U+2066-U+2069, U+200E/F,
// U+061C) and invalid UTF-8 bytes become visible escapes ("\x1b", "\u{202e}", "\xff"), as in the CLI's text
// output (core/util/safe_text.h). A crafted name can then neither hide nor reorder the text around it.

#include <QString>
#include <string_view>

namespace oomscope::ui {

// One line: a label, a table cell, a legend, a tooltip, a title. Newline and tab are escaped too.
QString safeText(std::string_view text);
QString safeText(const QString& text);
inline QString safeText(const char* text) { return safeText(std::string_view(text)); }  // e.what()

// A tooltip that is plain text, made so for Qt: a tooltip is rendered as rich text when it starts like
// markup, so a name such as "<b>x" would turn the rest bold and vanish. A text holding '<' or '&' is escaped
// inside a paragraph that keeps its line breaks; any other is returned as it is. (Labels take Qt::PlainText
// instead.)
QString plainToolTip(const QString& text);

// A multi-line text (a report, a message list): newlines and tabs kept, every other control escaped.
QString safeMultiline(std::string_view text);
QString safeMultiline(const QString& text);
inline QString safeMultiline(const char* text) { return safeMultiline(std::string_view(text)); }

}  // namespace oomscope::ui
