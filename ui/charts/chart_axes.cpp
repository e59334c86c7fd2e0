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

void setupByteAxis(QValueAxis* axis, const ByteUnit& unit, qint64 maxBytes, const QString& what,
                   const QString& tag, double headroom) {
  const double top = std::max(unit.toAxis(maxBytes) * headroom, 1e-9);
  axis->setRange(0.0, top);
  axis->applyNiceNumbers();
  const int decimals = decimalsForRange(axis->max() - axis->min(), axis->tickCount());
  axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
  axis->setTitleText(QStringLiteral("%1 (%2)").arg(what, unit.name) +
                     (tag.isEmpty() ? QString() : QStringLiteral(", ") + tag));
}

void keepNiceTicks(QValueAxis* axis, int target, bool integers, const QString& suffix) {
  const auto retick = [axis, target, integers, suffix](qreal min, qreal max) {
    const double span = max - min;
    if (!(span > 0)) return;
    const double raw = span / std::max(target, 2);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    if (integers) step = std::max(1.0, std::round(step));
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(std::floor(min / step) * step);
    axis->setTickInterval(step);
    const int decimals = integers ? 0 : std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
    axis->setLabelFormat(QStringLiteral("%.%1f%2").arg(decimals).arg(suffix));
  };
  QObject::connect(axis, &QValueAxis::rangeChanged, axis, retick);
  retick(axis->min(), axis->max());
}

void setupSecondsAxis(QValueAxis* axis, double firstSeconds, double lastSeconds, const QString& title) {
  double lo = firstSeconds;
  double hi = lastSeconds;
  if (!(hi > lo)) {
    lo -= 0.5e-3;
    hi += 0.5e-3;
  }
  axis->setTitleText(title);
  axis->setRange(lo, hi);
  keepNiceTicks(axis, 8, false);
}

}  // namespace oomscope::ui
