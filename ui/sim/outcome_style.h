#pragma once
// One palette for every view of a split-and-retry run, so the tree, the legend, the event table and the
// gauge agree: ok green, oom amber, bug red, dropped grey, crash black (docs/architecture.md),
// chosen dark enough to stay readable as text on a white background.

#include <QColor>
#include <QString>

#include "core/sim/event.h"

namespace oomscope::ui::sim_style {

inline QColor outcomeColor(oomscope::sim::Outcome o) {
  using oomscope::sim::Outcome;
  switch (o) {
    case Outcome::Ok:
      return QColor(0x2e, 0x9e, 0x4f);
    case Outcome::Oom:
      return QColor(0xe8, 0x9a, 0x0c);
    case Outcome::Bug:
      return QColor(0xd6, 0x2f, 0x2f);
    case Outcome::Dropped:
      return QColor(0x9a, 0xa0, 0xa6);
    case Outcome::Crash:
      return QColor(0x16, 0x16, 0x16);
  }
  return Qt::magenta;
}

inline QString outcomeLabel(oomscope::sim::Outcome o) {
  using oomscope::sim::Outcome;
  switch (o) {
    case Outcome::Ok:
      return QStringLiteral("ok");
    case Outcome::Oom:
      return QStringLiteral("OOM");
    case Outcome::Bug:
      return QStringLiteral("bug (swallowed)");
    case Outcome::Dropped:
      return QStringLiteral("dropped");
    case Outcome::Crash:
      return QStringLiteral("crash");
  }
  return {};
}

// Attempts the cursor has not reached yet: drawn as faint outlines so the shape of the run is visible.
inline QColor futureColor() { return QColor(0xd5, 0xd9, 0xde); }
inline QColor edgeColor() { return QColor(0x8c, 0x95, 0x9f); }
inline QColor currentRing() { return QColor(0x1f, 0x6f, 0xeb); }
inline QColor overBudget() { return QColor(0xd6, 0x2f, 0x2f); }
inline QColor withinBudget() { return QColor(0x2e, 0x9e, 0x4f); }

}  // namespace oomscope::ui::sim_style
