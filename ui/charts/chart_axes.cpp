#include "ui/charts/chart_axes.h"

#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace oomscope::ui {

ByteUnit byteUnitFor(qint64 maxBytes) {
  static const char* const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  ByteUnit unit{1, QStringLiteral("B")};
  double v = double(std::max<qint64>(maxBytes, 1));
  for (int i = 1; i < 6 && v >= 1024.0; ++i) {
    v /= 1024.0;
    unit.bytes *= 1024.0;
    unit.name = QString::fromLatin1(names[i]);
  }
  return unit;
}

int decimalsForRange(double span, int ticks) {
  if (!(span > 0) || ticks < 2) return 0;
  const double step = span / double(ticks - 1);
  return std::clamp(int(std::ceil(-std::log10(step))), 0, 9);
}

void setupByteAxis(QValueAxis* axis, const ByteUnit& unit, qint64 maxBytes, const QString& what, double headroom) {
  const double top = std::max(unit.toAxis(maxBytes) * headroom, 1e-9);
  axis->setRange(0.0, top);
  axis->applyNiceNumbers();
  const int decimals = decimalsForRange(axis->max() - axis->min(), axis->tickCount());
  axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
  axis->setTitleText(QStringLiteral("%1 (%2)").arg(what, unit.name));
}

void setupSecondsAxis(QValueAxis* axis, double firstSeconds, double lastSeconds, const QString& title) {
  double lo = firstSeconds;
  double hi = lastSeconds;
  if (!(hi > lo)) {
    lo -= 0.5e-3;
    hi += 0.5e-3;
  }
  axis->setTitleText(title);
  axis->setTickCount(7);
  const auto relabel = [axis](qreal min, qreal max) {
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimalsForRange(max - min, axis->tickCount()) + 1));
  };
  QObject::connect(axis, &QValueAxis::rangeChanged, axis, relabel);
  axis->setRange(lo, hi);
  relabel(lo, hi);
}

}  // namespace oomscope::ui
