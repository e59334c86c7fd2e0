#include "ui/snapshot/series_widget.h"

#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/models/report_format.h"

namespace oomscope::ui {

SeriesWidget::SeriesWidget(QWidget* parent) : QWidget(parent) {
  setMinimumSize(400, 220);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void SeriesWidget::setDocument(std::shared_ptr<const SnapshotDocument> doc) {
  m_doc = std::move(doc);
  m_lo = 0;
  m_hi = 1;
  m_max = 1;
  if (m_doc && !m_doc->series.empty()) {
    m_hi = std::max(1e-6, m_doc->series.back().x);
    for (const auto& p : m_doc->series) m_max = std::max(m_max, p.y);
  }
  update();
}

void SeriesWidget::wheelEvent(QWheelEvent* event) {
  if (!m_doc || m_doc->series.empty()) return;
  const QRect r = plotRect();
  const double center = m_lo + (event->position().x() - r.left()) / std::max(1, r.width()) * (m_hi - m_lo);
  const double f = std::pow(0.8, event->angleDelta().y() / 120.0);
  const double end = std::max(1e-6, m_doc->series.back().x);
  m_lo = std::max(0.0, center - (center - m_lo) * f);
  m_hi = std::min(end, center + (m_hi - center) * f);
  if (m_hi - m_lo < 1e-6) m_hi = m_lo + 1e-6;
  update();
}

void SeriesWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRect r = plotRect();
  p.setPen(palette().mid().color());
  p.drawRect(r.adjusted(0, 0, -1, -1));
  if (!m_doc || m_doc->series.empty()) {
    p.drawText(r, Qt::AlignCenter, tr("No memory events to plot"));
    return;
  }
  p.setPen(palette().text().color());
  p.drawText(QRect(r.left(), 2, r.width(), 20), Qt::AlignLeft | Qt::AlignVCenter, m_doc->seriesTitle);
  const double top = m_max * 1.08;
  auto xOf = [&](double t) { return r.left() + (t - m_lo) / (m_hi - m_lo) * r.width(); };
  auto yOf = [&](double b) { return r.bottom() - b / top * r.height(); };
  // Column maxima.
  std::vector<double> colMax(static_cast<std::size_t>(r.width() + 1), -1);
  double last = 0;
  for (const auto& pt : m_doc->series) {
    const double x = xOf(pt.x);
    if (x < r.left()) {
      last = pt.y;
      continue;
    }
    if (x > r.right()) break;
    auto& m = colMax[static_cast<std::size_t>(x - r.left())];
    m = std::max(m, pt.y);
  }
  QPainterPath path;
  path.moveTo(r.left(), yOf(0));
  for (std::size_t c = 0; c < colMax.size(); ++c) {
    if (colMax[c] >= 0) last = colMax[c];
    path.lineTo(r.left() + static_cast<double>(c), yOf(last));
  }
  path.lineTo(r.right(), yOf(0));
  p.fillPath(path, QColor(90, 140, 210, 110));
  p.setPen(QPen(QColor(40, 90, 170), 1.2));
  p.drawPath(path);
  p.setPen(palette().text().color());
  const QFontMetrics fm(font());
  for (int i = 0; i <= 4; ++i) {
    const double b = top * i / 4.0;
    p.drawText(QRect(0, static_cast<int>(yOf(b)) - fm.height() / 2, r.left() - 6, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, bytesText(static_cast<qint64>(b)));
  }
  for (int i = 0; i <= 5; ++i) {
    const double t = m_lo + (m_hi - m_lo) * i / 5.0;
    p.drawText(QRect(static_cast<int>(xOf(t)) - 60, r.bottom() + 4, 120, fm.height()), Qt::AlignHCenter,
               QStringLiteral("%1 s").arg(t, 0, 'f', 3));
  }
  p.setPen(QPen(QColor(200, 30, 30), 1.5));
  for (double t : m_doc->oomTimes) {
    const double x = xOf(t);
    if (x >= r.left() && x <= r.right()) p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
  }
}

}  // namespace oomscope::ui
