#pragma once
// The application icon: resources/icons/oomscope.svg when an SVG image plugin is present, otherwise the same
// picture painted with QPainter (Debian's Qt 6 base packages ship no SVG plugin).

#include <QIcon>

namespace oomscope::ui {

QIcon appIcon();

}  // namespace oomscope::ui
