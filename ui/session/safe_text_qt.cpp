#include "ui/session/safe_text_qt.h"

#include "core/util/safe_text.h"

namespace oomscope::ui {

QString safeText(std::string_view text) { return QString::fromStdString(single_line_safe(text)); }

// A QString holds no invalid UTF-8 (lone surrogates come out of toStdString() as U+FFFD), so only its
// controls are escaped.
QString safeText(const QString& text) { return safeText(text.toStdString()); }

QString plainToolTip(const QString& text) {
  if (!text.contains(QLatin1Char('<')) && !text.contains(QLatin1Char('&'))) return text;
  return QStringLiteral("<p style='white-space:pre-wrap'>") + text.toHtmlEscaped() + QStringLiteral("</p>");
}

QString safeMultiline(std::string_view text) { return QString::fromStdString(terminal_safe(text)); }

QString safeMultiline(const QString& text) { return safeMultiline(text.toStdString()); }

}  // namespace oomscope::ui
