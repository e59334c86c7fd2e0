#include "ui/snapshot/overlay_widget.h"

#include <QFileInfo>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {
const QColor kColourA(0x1f, 0x77, 0xb4);
const QColor kColourB(0xe6, 0x7e, 0x22);

QString axisText(snapshot::OverlayAxis axis, double x) {
  if (axis == snapshot::OverlayAxis::Entry) return QString::number(static_cast<qint64>(std::llround(x)));
  const int decimals = std::abs(x) < 10000 ? 1 : 0;
  const double scale = decimals == 1 ? 10.0 : 1.0;
  double ms = std::round(x / 1000.0 * scale) / scale;
  if (ms == 0) ms = 0.0;  // a tick a hair below zero would read "-0.0 ms"
  return QStringLiteral("%1 ms").arg(ms, 0, 'f', decimals);
}
}  // namespace

OverlayWidget::OverlayWidget(QWidget* parent) : QWidget(parent) {
  setMinimumSize(400, 240);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void OverlayWidget::setResult(std::shared_ptr<const RunOverlayResult> result) {
  m_result = std::move(result);
  m_shift = 0;
  update();
}

void OverlayWidget::setShift(double shift) {
  m_shift = shift;
  update();
}

double OverlayWidget::placedB(double x) const {
  return x + (m_result ? m_result->overlay.b_offset : 0) + m_shift;
}

QRect OverlayWidget::plotRect() const { return rect().adjusted(78, 34, -16, -30); }

void OverlayWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QRect r = plotRect();
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(r);
  if (!m_result) {
    p.setPen(palette().color(QPalette::Text));
    p.drawText(r, Qt::AlignCenter, tr("Open a second run to lay it over this one."));
    return;
  }
  if (m_result->noTimeAxis()) {  // two JAX memory profiles: one moment each
    p.setPen(palette().color(QPalette::Text));
    p.drawText(r.adjusted(24, 0, -24, 0), Qt::AlignCenter | Qt::TextWordWrap,
               tr("No time axis: a JAX memory profile is one heap snapshot, taken when it was saved. The two "
                  "runs are compared side by side below, by Python line."));
    return;
  }
  const snapshot::RunOverlay& o = m_result->overlay;
  double lo = 0, hi = 1;
  bool first = true;
  std::int64_t top = 1;
  auto extend = [&](double x) {
    lo = first ? x : std::min(lo, x);
    hi = first ? x : std::max(hi, x);
    first = false;
  };
  for (const auto& pt : o.a.series) extend(pt.x), top = std::max(top, pt.bytes);
  for (const auto& pt : o.b.series) extend(placedB(pt.x)), top = std::max(top, pt.bytes);
  if (hi <= lo) hi = lo + 1;
  const double ymax = static_cast<double>(top) * 1.08;
  auto X = [&](double x) { return r.left() + (x - lo) / (hi - lo) * r.width(); };
  auto Y = [&](double b) { return r.bottom() - b / ymax * r.height(); };
  // Grid: 4 byte levels, 5 x ticks.
  p.setPen(QPen(palette().color(QPalette::Midlight), 1, Qt::DotLine));
  for (int i = 1; i <= 4; ++i) {
    const double b = ymax * i / 4.5;
    p.drawLine(QPointF(r.left(), Y(b)), QPointF(r.right(), Y(b)));
    p.save();
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(0, Y(b) - 8, r.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
               bytesText(static_cast<qint64>(b)));
    p.restore();
  }
  p.setPen(palette().color(QPalette::Text));
  for (int i = 0; i <= 4; ++i) {
    const double x = lo + (hi - lo) * i / 4;
    // Centred under its tick, but kept inside the widget (the last tick sits at the right edge).
    const double cx = std::clamp(X(x), 50.0, static_cast<double>(width()) - 50.0);
    p.drawText(QRectF(cx - 50, r.bottom() + 4, 100, 18), Qt::AlignCenter, axisText(o.axis, x));
  }
  auto draw = [&](const snapshot::OverlayRun& run, bool isB, const QColor& c) {
    QPainterPath path;
    std::int64_t last = -1;
    for (std::size_t i = 0; i < run.series.size(); ++i) {
      const auto& pt = run.series[i];
      const double x = X(isB ? placedB(pt.x) : pt.x);
      if (i == 0)
        path.moveTo(x, Y(static_cast<double>(pt.bytes)));
      else
        path.lineTo(x, Y(static_cast<double>(last))), path.lineTo(x, Y(static_cast<double>(pt.bytes)));
      last = pt.bytes;
    }
    p.setPen(QPen(c, 1.6));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    const double px = X(isB ? placedB(run.peak_x) : run.peak_x);
    p.setPen(QPen(c, 1, Qt::DashLine));
    p.drawLine(QPointF(px, r.top()), QPointF(px, r.bottom()));
    const QString label = tr("%1 peak %2 at %3")
                              .arg(isB ? QStringLiteral("B") : QStringLiteral("A"), bytesText(run.peak_bytes),
                                   axisText(o.axis, isB ? placedB(run.peak_x) : run.peak_x));
    const double ly = isB ? r.top() + 4 : r.top() + 20;
    const double w = p.fontMetrics().horizontalAdvance(label) + 8;
    const double lx = std::min(px + 4, static_cast<double>(r.right()) - w);
    p.setPen(c.darker(130));
    p.drawText(QRectF(lx, ly, w, 16), Qt::AlignLeft | Qt::AlignVCenter, label);
  };
  draw(o.a, false, kColourA);
  draw(o.b, true, kColourB);
  // Legend above the plot.
  p.setPen(kColourA);
  const QString la = tr("A: %1").arg(safeText(QFileInfo(QString::fromStdString(o.a.path)).fileName()));
  p.drawText(QRectF(r.left(), 4, r.width() / 2.0, 22), Qt::AlignLeft | Qt::AlignVCenter, la);
  p.setPen(kColourB);
  const QString lb = tr("B: %1").arg(safeText(QFileInfo(QString::fromStdString(o.b.path)).fileName()));
  p.drawText(QRectF(r.left() + r.width() / 2.0, 4, r.width() / 2.0, 22), Qt::AlignLeft | Qt::AlignVCenter,
             lb);
}

}  // namespace oomscope::ui
