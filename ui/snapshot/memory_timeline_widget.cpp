#include "ui/snapshot/memory_timeline_widget.h"

#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "core/snapshot/categories.h"
#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

QColor bandColor(std::uint32_t element) {
  return QColor::fromHsv(static_cast<int>((element * 47u) % 360u), 120, 225);
}

}  // namespace

MemoryTimelineWidget::MemoryTimelineWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(400, 240);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void MemoryTimelineWidget::setDocument(std::shared_ptr<const SnapshotDocument> doc) {
  m_doc = std::move(doc);
  const auto* d = m_doc ? m_doc->deviceAnalysis() : nullptr;
  m_timeline = d ? &d->timeline : nullptr;
  rebuildDrawn();
  resetZoom();
}

void MemoryTimelineWidget::setMaxDrawn(int n) {
  m_maxDrawn = std::max(0, n);
  rebuildDrawn();
  update();
}

void MemoryTimelineWidget::rebuildDrawn() {
  m_drawn.clear();
  if (!m_timeline) return;
  std::vector<std::uint32_t> all(m_timeline->elements.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint32_t>(i);
  const auto n = std::min<std::size_t>(all.size(), static_cast<std::size_t>(m_maxDrawn));
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [&](std::uint32_t a, std::uint32_t b) {
                      return m_timeline->elements[a].size > m_timeline->elements[b].size;
                    });
  m_drawn.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
  std::sort(m_drawn.begin(), m_drawn.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = m_timeline->elements[a];
    const auto& y = m_timeline->elements[b];
    return x.start != y.start ? x.start < y.start : a < b;
  });
}

std::int64_t MemoryTimelineWidget::maxIndex() const {
  if (!m_timeline || m_timeline->totals.empty()) return 0;
  return static_cast<std::int64_t>(m_timeline->totals.size()) - 1;
}

std::int64_t MemoryTimelineWidget::totalAt(std::int64_t index) const {
  return m_timeline ? m_timeline->bytes_at(index) : 0;
}

void MemoryTimelineWidget::setRange(double lo, double hi) {
  const double min = static_cast<double>(minIndex()), max = static_cast<double>(maxIndex());
  const double span = std::clamp(hi - lo, std::min(8.0, max - min), max - min);
  lo = std::clamp(lo, min, max - span);
  m_lo = lo;
  m_hi = lo + span;
  emit rangeChanged(m_lo, m_hi);
  update();
}

void MemoryTimelineWidget::resetZoom() {
  setRange(static_cast<double>(minIndex()), static_cast<double>(maxIndex()));
}

void MemoryTimelineWidget::zoomAt(double center, double factor) {
  const double lo = center - (center - m_lo) * factor;
  const double hi = center + (m_hi - center) * factor;
  setRange(lo, hi);
}

void MemoryTimelineWidget::setSelectedIndex(std::int64_t index) {
  m_selected = std::clamp<std::int64_t>(index, minIndex(), maxIndex());
  update();
}

QRect MemoryTimelineWidget::plotRect() const { return rect().adjusted(78, 12, -14, -30); }

double MemoryTimelineWidget::xOf(double index) const {
  const QRect r = plotRect();
  const double span = std::max(1e-9, m_hi - m_lo);
  return r.left() + (index - m_lo) / span * r.width();
}

double MemoryTimelineWidget::indexOf(double x) const {
  const QRect r = plotRect();
  return m_lo + (x - r.left()) / std::max(1, r.width()) * (m_hi - m_lo);
}

double MemoryTimelineWidget::yOf(double bytes) const {
  const QRect r = plotRect();
  const double top =
      m_timeline ? std::max<double>(1.0, static_cast<double>(m_timeline->peak_bytes) * 1.08) : 1.0;
  return r.bottom() - bytes / top * r.height();
}

std::int64_t MemoryTimelineWidget::indexAtX(int x) const {
  // Index i covers [i - 0.5, i + 0.5) on the axis.
  const double a = indexOf(x) - 0.5, b = indexOf(x + 1) - 0.5;
  auto first = static_cast<std::int64_t>(std::ceil(a));
  auto last = static_cast<std::int64_t>(std::ceil(b)) - 1;
  first = std::clamp<std::int64_t>(first, minIndex(), maxIndex());
  last = std::clamp<std::int64_t>(last, minIndex(), maxIndex());
  if (last < first) return std::clamp<std::int64_t>(std::llround(indexOf(x + 0.5)), minIndex(), maxIndex());
  std::int64_t best = first;
  for (std::int64_t i = first + 1; i <= last; ++i)
    if (totalAt(i) > totalAt(best)) best = i;
  return best;
}

void MemoryTimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRect r = plotRect();
  p.fillRect(r, palette().base());
  p.setPen(palette().mid().color());
  p.drawRect(r.adjusted(0, 0, -1, -1));
  if (!m_timeline) {
    p.drawText(r, Qt::AlignCenter, tr("No snapshot"));
    return;
  }
  // Bands, one pixel column at a time.
  for (int x = r.left() + 1; x < r.right(); ++x) {
    const std::int64_t s = indexAtX(x);
    std::int64_t drawnLive = 0;
    for (std::uint32_t e : m_drawn)
      if (m_timeline->elements[e].live_at(s)) drawnLive += m_timeline->elements[e].size;
    const std::int64_t summarised = std::max<std::int64_t>(0, totalAt(s) - drawnLive);
    double base = 0;
    auto band = [&](double bytes, const QColor& c) {
      if (bytes <= 0) return;
      const double y0 = yOf(base), y1 = yOf(base + bytes);
      p.fillRect(QRectF(x, y1, 1.0, std::max(0.6, y0 - y1)), c);
      base += bytes;
    };
    band(static_cast<double>(summarised), QColor(200, 200, 205));
    for (std::uint32_t e : m_drawn)
      if (m_timeline->elements[e].live_at(s))
        band(static_cast<double>(m_timeline->elements[e].size), bandColor(e));
  }
  // Axes.
  p.setPen(palette().text().color());
  const QFontMetrics fm(font());
  for (int i = 0; i <= 4; ++i) {
    const double bytes = static_cast<double>(m_timeline->peak_bytes) * 1.08 * i / 4.0;
    const int y = static_cast<int>(yOf(bytes));
    p.drawText(QRect(0, y - fm.height() / 2, r.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               bytesText(static_cast<qint64>(bytes)));
    p.setPen(QColor(0, 0, 0, 25));
    p.drawLine(r.left(), y, r.right(), y);
    p.setPen(palette().text().color());
  }
  // Ticks at whole entries, every 1, 2, 5, 10, 20, 50, ... entries.
  double step = 1;
  const double rawStep = (m_hi - m_lo) / 6.0;
  for (int k = 0; step < rawStep; ++k) step *= (k % 3 == 1) ? 2.5 : 2.0;
  for (double idx = std::ceil(m_lo / step) * step; idx <= m_hi + 1e-9; idx += step) {
    const int x = static_cast<int>(xOf(idx));
    const QString label =
        idx < 0 ? tr("start") : QLocale().toString(static_cast<qlonglong>(std::llround(idx)));
    const int w = fm.horizontalAdvance(label) + 4;
    const int left = std::clamp(x - w / 2, 0, width() - w);
    p.setPen(QColor(0, 0, 0, 25));
    p.drawLine(x, r.top(), x, r.bottom());
    p.setPen(palette().text().color());
    p.drawLine(x, r.bottom(), x, r.bottom() + 3);
    p.drawText(QRect(left, r.bottom() + 4, w, fm.height()), Qt::AlignHCenter | Qt::AlignTop, label);
  }
  p.drawText(QRect(r.left(), r.bottom() + 4 + fm.height() - 2, r.width(), fm.height() + 2), Qt::AlignRight,
             tr("trace entry"));
  // Marks: peak (dashed), OOM (red), selection (blue).
  auto vline = [&](std::int64_t index, const QColor& c, Qt::PenStyle style, const QString& label,
                   double bottom) {
    const double x = std::min<double>(xOf(static_cast<double>(index)), r.right() - 1);
    if (x < r.left()) return;
    p.setPen(QPen(c, 1.5, style));
    p.drawLine(QPointF(x, r.top()), QPointF(x, bottom));
    p.drawText(QPointF(std::min<double>(x + 4, r.right() - fm.horizontalAdvance(label) - 2),
                       r.top() + fm.ascent() + 2),
               label);
  };
  // The peak's line stops above the peak so that the one-pixel spike under it stays visible.
  vline(m_timeline->peak_index, QColor(90, 90, 90), Qt::DashLine,
        tr("peak %1").arg(bytesText(m_timeline->peak_bytes)),
        yOf(static_cast<double>(m_timeline->peak_bytes)) - 3);
  if (const auto* d = m_doc->deviceAnalysis(); d && d->oom)
    vline(d->oom->index, QColor(200, 30, 30), Qt::SolidLine,
          tr("OOM: %1 requested").arg(bytesText(d->oom->requested)), r.bottom());
  if (m_selected != m_timeline->peak_index)
    vline(m_selected, QColor(30, 90, 200), Qt::SolidLine, QString(), r.bottom());
}

QString MemoryTimelineWidget::describeAt(QPoint pos) const {
  const QRect r = plotRect();
  if (!m_timeline || !r.contains(pos)) return {};
  const std::int64_t s = indexAtX(pos.x());
  std::int64_t drawnLive = 0;
  for (std::uint32_t e : m_drawn)
    if (m_timeline->elements[e].live_at(s)) drawnLive += m_timeline->elements[e].size;
  const std::int64_t total = totalAt(s);
  const std::int64_t summarised = std::max<std::int64_t>(0, total - drawnLive);
  const QString header = (s < 0 ? tr("Before the first entry") : tr("Trace entry %1").arg(s)) +
                         tr(": %1 active").arg(bytesText(total));
  double base = static_cast<double>(summarised);
  if (yOf(0) >= pos.y() && pos.y() >= yOf(base))
    return header + tr("\nsummarised band: %1 in allocations smaller than the %2 drawn")
                        .arg(bytesText(summarised))
                        .arg(m_drawn.size());
  for (std::uint32_t e : m_drawn) {
    const auto& el = m_timeline->elements[e];
    if (!el.live_at(s)) continue;
    const double top = base + static_cast<double>(el.size);
    if (yOf(base) >= pos.y() && pos.y() >= yOf(top)) {
      QString text = header + QStringLiteral("\n%1 at 0x%2").arg(bytesWithExact(el.size)).arg(el.addr, 0, 16);
      text += el.start < 0 ? (el.ghost ? tr(", allocated before the trace (live block of the snapshot)")
                                       : tr(", allocated before the trace"))
                           : tr(", allocated at entry %1").arg(el.start);
      text += el.end < 0 ? tr(", live at the end") : tr(", freed at entry %1").arg(el.end);
      const auto& ids = m_doc->snap->frames_of(el.frames);
      if (ids.empty()) text += tr("\n(no stack recorded)");
      for (std::size_t i = 0; i < ids.size() && i < 12; ++i) {
        const auto& f = m_doc->snap->frames[ids[i]];
        text += QStringLiteral("\n  %1:%2 in %3").arg(safeText(f.filename)).arg(f.line).arg(safeText(f.name));
      }
      if (ids.size() > 12) text += tr("\n  \u2026 %1 more frames").arg(ids.size() - 12);
      return text;
    }
    base = top;
  }
  return header;
}

void MemoryTimelineWidget::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoomAt(indexOf(event->position().x()), std::pow(0.8, steps));
  event->accept();
}

void MemoryTimelineWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  m_dragFrom = event->pos();
  m_dragLo = m_lo;
  m_dragHi = m_hi;
  m_dragged = false;
}

void MemoryTimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (m_dragFrom && (event->buttons() & Qt::LeftButton)) {
    const int dx = event->pos().x() - m_dragFrom->x();
    if (std::abs(dx) > 3) m_dragged = true;
    if (m_dragged) {
      const double perPixel = (m_dragHi - m_dragLo) / std::max(1, plotRect().width());
      setRange(m_dragLo - dx * perPixel, m_dragHi - dx * perPixel);
    }
    return;
  }
  const QString text = describeAt(event->pos());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void MemoryTimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && m_dragFrom && !m_dragged && plotRect().contains(event->pos())) {
    setSelectedIndex(indexAtX(event->pos().x()));
    emit eventSelected(m_selected);
  }
  m_dragFrom.reset();
}

}  // namespace oomscope::ui
