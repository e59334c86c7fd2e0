// Painting the OOM forecast on a rank's chart (see live_chart_forecast.h).

#include "ui/live/live_chart_forecast.h"

#include <QPainterPath>
#include <QPolygonF>
#include <algorithm>

#include "ui/live/live_chart.h"

namespace oomscope::ui {

std::int64_t forecastYTop(const LiveChartData& d) { return d.projection.shown ? d.projection.limit : 0; }

void paintForecast(QPainter& p, const LiveChartData& d, const LiveChartAxes& a) {
  const QFontMetrics fm(p.font());
  const int lh = fm.height();
  if (!d.projection.shown) {
    if (d.forecastNote.isEmpty()) return;
    p.setPen(QColor(0xd6, 0x27, 0x28));
    p.drawText(a.plot.adjusted(6, lh + 4, -6, -4), Qt::AlignLeft | Qt::AlignTop, d.forecastNote);
    return;
  }
  const auto& f = d.projection;
  const QColor colour = liveFieldColor(f.figure);
  const QPointF from(a.x(f.t_from), a.y(double(f.from_bytes)));
  const double yLimit = a.y(double(f.limit));
  const double xEarly = a.x(f.t_early), xOom = a.x(f.t_oom), xLate = a.x(f.t_late);
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  // The range: the fan between the early and the late crossing, and its span on the limit line.
  QColor fan = colour;
  fan.setAlpha(40);
  p.setPen(Qt::NoPen);
  p.setBrush(fan);
  p.drawPolygon(QPolygonF{from, QPointF(xEarly, yLimit), QPointF(xLate, yLimit)});
  fan.setAlpha(160);
  p.setPen(QPen(fan, 4, Qt::SolidLine, Qt::FlatCap));
  p.drawLine(QPointF(xEarly, yLimit), QPointF(std::max(xLate, xEarly + 1), yLimit));
  // The projection itself.
  p.setPen(QPen(colour, 1.8, Qt::DashLine));
  p.drawLine(from, QPointF(xOom, yLimit));
  const double right = a.plot.right();
  QString label = f.label + QObject::tr(" [derived]");
  if (xOom <= right) {
    p.setBrush(colour);
    p.setPen(Qt::NoPen);
    p.drawEllipse(QPointF(xOom, yLimit), 4, 4);
  } else {
    // Beyond the window: an arrow at the edge, on the projection's way to the limit.
    const double t = (right - from.x()) / std::max(1.0, xOom - from.x());
    const QPointF edge(right - 2, from.y() + t * (yLimit - from.y()));
    p.setBrush(colour);
    p.setPen(Qt::NoPen);
    p.drawPolygon(QPolygonF{edge, edge + QPointF(-9, -5), edge + QPointF(-9, 5)});
    label += QObject::tr(" \u2192 later");
  }
  // The label, under the limit line (the capacity's own label sits above it), kept inside the plot.
  const int room = std::max(20, a.plot.width() - 8);
  label = fm.elidedText(label, Qt::ElideMiddle, room - 8);
  const int w = std::min(room, fm.horizontalAdvance(label) + 8);
  const double lx =
      std::max(double(a.plot.left()) + 2, std::min(std::min(xOom, right) - w / 2.0, right - w - 2));
  const double ly = std::min(double(a.plot.bottom()) - lh - 4, yLimit + 4);
  const QRectF box(lx, ly, w, lh + 2);
  QColor back = Qt::white;
  back.setAlpha(215);
  p.fillRect(box, back);
  p.setPen(QColor(0xd6, 0x27, 0x28));
  p.drawText(box, Qt::AlignCenter, label);
  p.restore();
}

}  // namespace oomscope::ui
