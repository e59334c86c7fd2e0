// Painting a rank's live chart (see live_chart.h).

#include "ui/live/live_chart.h"

#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "core/util/bytes.h"
#include "ui/live/live_chart_forecast.h"

namespace oomscope::ui {

using live::Field;

QColor liveFieldColor(Field f) {
  switch (f) {
    case Field::Allocated:
      return QColor(0x1f, 0x77, 0xb4);
    case Field::Reserved:
      return QColor(0x2c, 0xa0, 0x2c);
    case Field::Driver:
    case Field::DeviceUsed:
      return QColor(0xd6, 0x27, 0x28);
    case Field::Rss:
      return QColor(0x7f, 0x7f, 0x7f);
    case Field::Step:
      return QColor(0x94, 0x67, 0xbd);
    default:
      return QColor(0x55, 0x55, 0x55);
  }
}

QString liveFieldLabel(Field f) {
  switch (f) {
    case Field::Allocated:
      return QObject::tr("allocated");
    case Field::Reserved:
      return QObject::tr("reserved");
    case Field::Driver:
      return QObject::tr("driver");
    case Field::DeviceUsed:
      return QObject::tr("device used");
    case Field::Rss:
      return QObject::tr("RSS");
    case Field::Step:
      return QObject::tr("step");
    default:
      return QString::fromLatin1(live::field_name(f));
  }
}

namespace {

// A "nice" axis top and step for [0, v].
double niceStep(double range, int ticks) {
  if (range <= 0) return 1;
  const double raw = range / ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

QChar eventLetter(const QString& kind) {
  if (kind == QLatin1String("oom")) return QLatin1Char('O');
  if (kind == QLatin1String("split")) return QLatin1Char('S');
  if (kind == QLatin1String("checkpoint")) return QLatin1Char('C');
  if (kind == QLatin1String("restart")) return QLatin1Char('R');
  return QLatin1Char('N');
}

// A round step for a time axis of `range` seconds: 1-2-2.5-5 under a second, else whole seconds, minutes
// and hours that read well on a clock (5 s, 15 s, 1 min, 5 min, 30 min, 2 h, ...).
double niceTimeStep(double range, int ticks) {
  const double raw = range / ticks;
  if (raw < 1) return niceStep(range, ticks);
  static constexpr double kSteps[] = {1,   2,   5,    10,   15,   30,    60,    120,   300,
                                      600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
  for (double step : kSteps)
    if (raw <= step) return step;
  return niceStep(range / 86400, ticks) * 86400;
}

// Decimals that show `value` exactly (up to maxDecimals), or -1 when it needs more.
int exactDecimals(double value, int maxDecimals) {
  for (int d = 0; d <= maxDecimals; ++d) {
    const double scaled = value * std::pow(10.0, d);
    if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) return d;
  }
  return -1;
}

}  // namespace

std::vector<LiveTimeTick> liveTimeTicks(std::int64_t origin, std::int64_t t0, std::int64_t t1, int count) {
  std::vector<LiveTimeTick> ticks;
  if (t1 <= t0 || count < 1) return ticks;
  const double from = double(t0 - origin) / 1e9, to = double(t1 - origin) / 1e9;
  const double step = std::max(1e-6, niceTimeStep(to - from, count));  // seconds; ns times cannot go finer
  struct Unit {
    double seconds;
    const char* name;
    double from;  // used when the axis ends at or after this many seconds
    int maxDecimals;
  };
  static constexpr Unit kUnits[] = {
      {3600, "h", 7200, 2}, {60, "min", 120, 2}, {1, "s", 1, 3}, {1e-3, "ms", 0, 3}};
  const Unit* unit = &kUnits[3];
  int decimals = exactDecimals(step / unit->seconds, unit->maxDecimals);
  for (const Unit& u : kUnits) {
    if (to < u.from) continue;
    const int d = exactDecimals(step / u.seconds, u.maxDecimals);
    if (d < 0) continue;
    unit = &u;
    decimals = d;
    break;
  }
  if (decimals < 0) decimals = unit->maxDecimals;
  const auto first = static_cast<std::int64_t>(std::ceil(from / step - 1e-9));
  const auto last = static_cast<std::int64_t>(std::floor(to / step + 1e-9));
  for (std::int64_t k = first; k <= last; ++k) {
    const double seconds = double(k) * step;
    ticks.push_back({origin + std::llround(seconds * 1e9), QStringLiteral("%1 %2")
                                                               .arg(seconds / unit->seconds, 0, 'f', decimals)
                                                               .arg(QLatin1String(unit->name))});
  }
  return ticks;
}

LiveChart::LiveChart(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumHeight(160);
}

void LiveChart::setData(LiveChartData data) {
  m_data = std::move(data);
  update();
}

void LiveChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setRenderHint(QPainter::Antialiasing, false);
  const QFontMetrics fm(font());
  const int lh = fm.height();
  const LiveChartData& d = m_data;

  // Title row: rank, backend, connection state (each elided so they never overlap).
  const QString state = d.connected ? (d.status == tr("recorded") ? d.status : tr("live"))
                                    : (d.status.isEmpty() ? tr("waiting") : d.status);
  const QString stateText = fm.elidedText(state, Qt::ElideRight, std::max(40, width() * 2 / 5));
  const int stateWidth = fm.horizontalAdvance(stateText);
  p.setPen(d.connected ? QColor(0x2c, 0xa0, 0x2c) : QColor(0xd6, 0x27, 0x28));
  p.drawText(QRect(8, 2, width() - 16, lh), Qt::AlignRight | Qt::AlignVCenter, stateText);
  p.setPen(palette().text().color());
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  const QFontMetrics bfm(bold);
  p.drawText(QRect(8, 2, std::max(10, width() - 32 - stateWidth), lh), Qt::AlignLeft | Qt::AlignVCenter,
             bfm.elidedText(d.title, Qt::ElideRight, std::max(10, width() - 32 - stateWidth)));
  p.setFont(font());

  const int left = fm.horizontalAdvance(QStringLiteral("999.9 GiB")) + 12;
  const int right = fm.horizontalAdvance(QStringLiteral("999,999")) + 10;
  const QRect plot(left, lh + 8, std::max(10, width() - left - right), std::max(10, height() - 3 * lh - 14));
  p.setPen(palette().mid().color());
  p.drawRect(plot.adjusted(0, 0, -1, -1));
  if (d.t1 <= d.t0) return;

  // Y range over the byte series and the reference lines.
  double ymax = 0;
  double smin = 1e300, smax = -1e300;
  for (const auto& s : d.series)
    for (const auto& b : s.buckets) {
      if (s.field == Field::Step) {
        smin = std::min(smin, double(b.min));
        smax = std::max(smax, double(b.max));
      } else {
        ymax = std::max(ymax, double(b.max));
      }
    }
  ymax = std::max({ymax, double(d.recommended_max), double(forecastYTop(d)),
                   double(d.capacity) > ymax * 3 ? 0.0 : double(d.capacity)});
  const double ystep = niceStep(ymax * 1.05, 4);
  const double ytop = std::max(ystep, std::ceil(ymax * 1.05 / ystep) * ystep);
  const double span = double(d.t1 - d.t0);
  auto X = [&](std::int64_t t) { return plot.left() + (double(t - d.t0) / span) * plot.width(); };
  auto Y = [&](double v) { return plot.bottom() - (v / ytop) * plot.height(); };

  // Grid and the byte axis.
  p.setFont(font());
  for (double v = 0; v <= ytop + 1; v += ystep) {
    const int y = int(Y(v));
    p.setPen(QColor(0, 0, 0, 25));
    p.drawLine(plot.left(), y, plot.right(), y);
    p.setPen(palette().text().color());
    p.drawText(QRect(0, y - lh / 2, left - 6, lh), Qt::AlignRight | Qt::AlignVCenter,
               QString::fromStdString(format_bytes(static_cast<std::int64_t>(v))));
  }
  // Time axis: the time since the session's first sample.
  for (const LiveTimeTick& tick : liveTimeTicks(d.origin, d.t0, d.t1)) {
    const int x = int(X(tick.t));
    p.setPen(QColor(0, 0, 0, 25));
    p.drawLine(x, plot.top(), x, plot.bottom());
    p.setPen(palette().text().color());
    p.drawText(QRect(x - 45, plot.bottom() + 2, 90, lh), Qt::AlignCenter, tick.label);
  }

  p.save();
  p.setClipRect(plot);
  // Connection gaps: hatched.
  for (const auto& g : d.gaps) {
    const double x0 = X(g.from), x1 = g.to ? X(g.to) : plot.right();
    p.fillRect(QRectF(x0, plot.top(), std::max(2.0, x1 - x0), plot.height()),
               QBrush(QColor(0, 0, 0, 60), Qt::BDiagPattern));
  }
  const LiveSeries* alloc = nullptr;
  const LiveSeries* top = nullptr;
  for (const auto& s : d.series) {
    if (s.field == Field::Allocated) alloc = &s;
    if (s.field == d.top) top = &s;
  }
  p.setRenderHint(QPainter::Antialiasing, true);
  // Runs between connection gaps: lines and shading never bridge a gap.
  auto runOf = [&](std::int64_t t) {
    int run = 0;
    for (const auto& g : d.gaps)
      if (g.from < t) ++run;
    return run;
  };
  // The gap between allocated and the driver/device figure, shaded (what the MPS run died of).
  if (alloc && top && !alloc->buckets.isEmpty() && !top->buckets.isEmpty()) {
    QColor fill = liveFieldColor(d.top);
    fill.setAlpha(45);
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    for (int run = 0; run <= int(d.gaps.size()); ++run) {
      QPolygonF upper, lower;
      for (const auto& b : top->buckets)
        if (runOf(b.last_t) == run) upper << QPointF(X(b.last_t), Y(double(b.max)));
      for (auto it = alloc->buckets.rbegin(); it != alloc->buckets.rend(); ++it)
        if (runOf(it->last_t) == run) lower << QPointF(X(it->last_t), Y(double(it->last)));
      if (upper.size() > 1 && lower.size() > 1) p.drawPolygon(upper + lower);
    }
  }
  // Series: a min/max band when a bucket spans several samples, the last value as the line.
  for (const auto& s : d.series) {
    if (s.buckets.isEmpty()) continue;
    const bool isStep = s.field == Field::Step;
    if (isStep && smax <= smin) continue;
    auto SY = [&](double v) {
      return isStep ? plot.bottom() - (v - smin) / (smax - smin) * plot.height() * 0.95 : Y(v);
    };
    QPainterPath path;
    int lastRun = -1;
    for (const auto& b : s.buckets) {
      const QPointF pt(X(b.last_t), SY(double(b.last)));
      const int run = d.gaps.isEmpty() ? 0 : runOf(b.last_t);
      if (run != lastRun)
        path.moveTo(pt);
      else
        path.lineTo(pt);
      lastRun = run;
    }
    QPen pen(liveFieldColor(s.field), isStep || s.field == Field::Rss ? 1.0 : 1.8);
    if (isStep) pen.setStyle(Qt::DotLine);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    if (!isStep) {
      QColor band = liveFieldColor(s.field);
      band.setAlpha(90);
      p.setPen(band);
      for (const auto& b : s.buckets)
        if (b.max != b.min)
          p.drawLine(QPointF(X(b.last_t), Y(double(b.min))), QPointF(X(b.last_t), Y(double(b.max))));
    }
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  // Capacity and recommended maximum.
  auto hline = [&](std::int64_t v, QColor c, const QString& label) {
    if (v <= 0 || double(v) > ytop) return;
    p.setPen(QPen(c, 1, Qt::DashLine));
    p.drawLine(QPointF(plot.left(), Y(double(v))), QPointF(plot.right(), Y(double(v))));
    p.drawText(QRectF(plot.left() + 4, Y(double(v)) - lh, plot.width() - 8, lh),
               Qt::AlignRight | Qt::AlignBottom, label);
  };
  hline(d.capacity, QColor(0x44, 0x44, 0x44),
        tr("capacity %1").arg(QString::fromStdString(format_bytes(d.capacity))));
  hline(d.recommended_max, QColor(0xff, 0x7f, 0x0e),
        tr("recommended max %1").arg(QString::fromStdString(format_bytes(d.recommended_max))));
  // Why there is no limit line (no capacity known, or one far above the curves: hline() left it out).
  QString limitNote = d.limitNote;
  if (limitNote.isEmpty() && d.has_bytes && d.capacity > 0 && double(d.capacity) > ytop)
    limitNote =
        tr("capacity %1: above the plotted range").arg(QString::fromStdString(format_bytes(d.capacity)));
  if (!limitNote.isEmpty()) {  // on a light backing, so the curves under it do not strike it through
    const QRect area = plot.adjusted(6, lh + 4, -6, -4);
    const QRect box = fm.boundingRect(area, Qt::AlignRight | Qt::AlignTop, limitNote).adjusted(-3, 0, 3, 0);
    QColor back = palette().base().color();
    back.setAlpha(215);
    p.fillRect(box, back);
    p.setPen(palette().placeholderText().color());
    p.drawText(area, Qt::AlignRight | Qt::AlignTop, limitNote);
  }
  // Event markers (OOMs drawn last, on top of a split at the same moment).
  QVector<LiveChartData::Mark> marks = d.events;
  std::stable_partition(marks.begin(), marks.end(),
                        [](const auto& m) { return m.kind != QLatin1String("oom"); });
  for (const auto& e : marks) {
    const double x = X(e.t);
    const QColor c = e.kind == QLatin1String("oom") ? QColor(0xd6, 0x27, 0x28) : QColor(0x55, 0x55, 0x55);
    p.setPen(QPen(c, 1, Qt::SolidLine));
    p.drawLine(QPointF(x, plot.top() + lh), QPointF(x, plot.bottom()));
    p.fillRect(QRectF(x - lh / 2.0, plot.top(), lh, lh), c);
    p.setPen(Qt::white);
    p.drawText(QRectF(x - lh / 2.0, plot.top(), lh, lh), Qt::AlignCenter, QString(eventLetter(e.kind)));
  }
  paintForecast(p, d, {plot, X, Y});
  p.restore();

  // Step axis on the right.
  if (smax > smin) {
    p.setPen(liveFieldColor(Field::Step));
    p.drawText(QRect(plot.right() + 4, plot.top(), right - 4, lh), Qt::AlignLeft,
               QLocale().toString(qint64(smax)));
    p.drawText(QRect(plot.right() + 4, plot.bottom() - lh, right - 4, lh), Qt::AlignLeft,
               QLocale().toString(qint64(smin)));
    p.drawText(QRect(plot.right() + 4, plot.center().y() - lh / 2, right - 4, lh), Qt::AlignLeft, tr("step"));
  }

  // Legend.
  int x = left;
  const int ly = height() - lh - 2;
  auto legend = [&](QColor c, const QString& text, bool dashed = false) {
    p.setPen(QPen(c, 2, dashed ? Qt::DotLine : Qt::SolidLine));
    p.drawLine(x, ly + lh / 2, x + 14, ly + lh / 2);
    p.setPen(palette().text().color());
    p.drawText(QRect(x + 18, ly, fm.horizontalAdvance(text) + 2, lh), Qt::AlignVCenter, text);
    x += 30 + fm.horizontalAdvance(text);
  };
  for (const auto& s : d.series)
    if (s.field != Field::Step || smax > smin)
      legend(liveFieldColor(s.field), liveFieldLabel(s.field), s.field == Field::Step);
  if (alloc && top) {
    QColor fill = liveFieldColor(d.top);
    fill.setAlpha(60);
    p.fillRect(QRect(x, ly + 2, 14, lh - 4), fill);
    p.setPen(palette().text().color());
    const QString t = tr("gap");
    p.drawText(QRect(x + 18, ly, fm.horizontalAdvance(t) + 2, lh), Qt::AlignVCenter, t);
    x += 30 + fm.horizontalAdvance(t);
  }
  if (d.projection.shown) legend(liveFieldColor(d.projection.figure), tr("OOM forecast"), true);
  if (d.series.isEmpty()) {
    p.setPen(palette().placeholderText().color());
    p.drawText(plot, Qt::AlignCenter,
               d.samples ? tr("no memory figures in the samples") : tr("no samples yet"));
  }
}

}  // namespace oomscope::ui
