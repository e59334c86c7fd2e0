#include "ui/sim/sim_format.h"

#include <QLocale>
#include <cmath>
#include <cstdlib>

#include "core/util/bytes.h"

namespace oomscope::ui::simfmt {

QString count(std::int64_t v) {
  static const QLocale c = [] {
    QLocale l(QLocale::English);
    return l;
  }();
  return c.toString(qlonglong(v));
}

QString signedCount(std::int64_t v) { return v > 0 ? QStringLiteral("+") + count(v) : count(v); }

namespace {
QString threeSig(double v) {
  const double a = std::fabs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return QString::number(v, 'f', decimals);
}
}  // namespace

QString duration(std::int64_t ns) {
  const double a = std::fabs(double(ns));
  if (a >= 60e9) {
    const auto totalS = std::llabs(ns) / 1'000'000'000;
    return QStringLiteral("%1%2 min %3 s")
        .arg(ns < 0 ? QStringLiteral("-") : QString())
        .arg(totalS / 60)
        .arg(totalS % 60);
  }
  if (a >= 1e9) return threeSig(double(ns) / 1e9) + QStringLiteral(" s");
  if (a >= 1e6) return threeSig(double(ns) / 1e6) + QStringLiteral(" ms");
  if (a >= 1e3) return threeSig(double(ns) / 1e3) + QStringLiteral(" us");
  return QString::number(ns) + QStringLiteral(" ns");
}

QString signedDuration(std::int64_t ns) { return ns > 0 ? QStringLiteral("+") + duration(ns) : duration(ns); }

QString percent(double f) { return QString::number(100.0 * f, 'f', 1) + QStringLiteral(" %"); }

QString signedPoints(double d) {
  const QString v = QString::number(100.0 * d, 'f', 1);
  return (d > 0.0005 ? QStringLiteral("+") : QString()) + v + QStringLiteral(" pp");
}

QString bytes(std::int64_t b) { return QString::fromStdString(format_bytes(b)); }
QString bytesExact(std::int64_t b) {
  return QString::fromStdString(format_bytes_exact(b)) + QStringLiteral(" bytes");
}

QString axisName(int axis) {
  switch (axis) {
    case 0:
      return QStringLiteral("x");
    case 1:
      return QStringLiteral("y");
    case 2:
      return QStringLiteral("z");
    default:
      return QStringLiteral("-");
  }
}

QString originName(sim::Origin o) {
  switch (o) {
    case sim::Origin::Batch:
      return QStringLiteral("batch");
    case sim::Origin::Scene:
      return QStringLiteral("scene");
    case sim::Origin::SpatialLow:
      return QStringLiteral("low half");
    case sim::Origin::SpatialHigh:
      return QStringLiteral("high half");
  }
  return {};
}

}  // namespace oomscope::ui::simfmt
