#include "ui/log/device_bar_widget.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "ui/models/report_format.h"

namespace oomscope::ui {

namespace {

constexpr int kBarHeight = 26;
constexpr int kRequestHeight = 12;
constexpr int kGap = 6;
constexpr int kLegendRow = 18;

}  // namespace

DeviceBarWidget::DeviceBarWidget(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setMouseTracking(true);
}

void DeviceBarWidget::setBar(const log::DeviceBar& bar) {
  m_parts.clear();
  auto add = [this](const QString& name, std::int64_t bytes, QColor color, const QString& provenance) {
    if (bytes > 0) m_parts.push_back({name, bytes, color, provenance});
  };
  const QString read = tr("read"), derived = tr("derived");
  add(tr("allocated by the framework"), bar.framework_allocated, QColor(0x2f, 0x6f, 0xb5), read);
  add(tr("reserved, unallocated"), bar.reserved_unused, QColor(0x8f, 0xb8, 0xe6),
      bar.framework_allocated > 0 ? derived : read);
  add(tr("this process, outside the framework"), bar.process_other, QColor(0x8e, 0x6b, 0xbf), derived);
  add(tr("outside the framework (this and other processes)"), bar.outside_framework, QColor(0xa0, 0x90, 0xb0),
      derived);
  add(tr("other processes"), bar.other_processes, QColor(0xc8, 0x5a, 0x4a), derived);
  add(tr("free"), bar.free, QColor(0xd8, 0xe8, 0xd0), read);
  m_capacity = bar.capacity;
  m_capacityName = QString::fromStdString(bar.capacity_name);
  m_request = bar.request;
  m_free = bar.free;
  qint64 sum = 0;
  for (const Part& p : m_parts) sum += p.bytes;
  // The capacity is the scale when stated; parts that add up past it (rounding in the log) widen it.
  m_scale = std::max<qint64>({m_capacity, sum, 1});
  updateGeometry();
  update();
}

QSize DeviceBarWidget::sizeHint() const {
  const int legendRows = static_cast<int>((m_parts.size() + 3) / 2);  // parts, the request, the scale
  return {520, kBarHeight + kGap + kRequestHeight + kGap + legendRows * kLegendRow + 8};
}

QSize DeviceBarWidget::minimumSizeHint() const { return {240, sizeHint().height()}; }

QRectF DeviceBarWidget::barRect() const { return QRectF(4, 4, width() - 8, kBarHeight); }

QRectF DeviceBarWidget::requestRect() const {
  const QRectF bar = barRect();
  if (m_request <= 0) return {};
  // The request starts where the free memory starts (the end of the used parts; free is the last part) and is
  // drawn to scale; past the bar's end it is clipped and marked, since it would not fit.
  const double perByte = bar.width() / static_cast<double>(m_scale);
  qint64 used = -m_free;
  for (const Part& part : m_parts) used += part.bytes;
  const double start = bar.left() + static_cast<double>(used) * perByte;
  const double w = static_cast<double>(m_request) * perByte;
  return QRectF(start, bar.bottom() + kGap, std::max(2.0, std::min(w, bar.right() - start + 0.0)),
                kRequestHeight);
}

void DeviceBarWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);
  const QRectF bar = barRect();
  p.fillRect(bar, palette().base());
  const double perByte = bar.width() / static_cast<double>(m_scale);
  double x = bar.left();
  for (const Part& part : m_parts) {
    const double w = static_cast<double>(part.bytes) * perByte;
    p.fillRect(QRectF(x, bar.top(), w, bar.height()), part.color);
    x += w;
  }
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(bar);
  if (m_request > 0) {
    const QRectF r = requestRect();
    const bool fits = m_request <= m_free;
    p.fillRect(r, fits ? QColor(0xe0, 0xa0, 0x30) : QColor(0xd0, 0x40, 0x30));
    if (!fits && r.right() >= bar.right() - 1) {  // it runs past the device: an arrow at the end
      p.setPen(QPen(palette().color(QPalette::WindowText), 2));
      p.drawLine(QPointF(bar.right() - 6, r.top()), QPointF(bar.right(), r.center().y()));
      p.drawLine(QPointF(bar.right() - 6, r.bottom()), QPointF(bar.right(), r.center().y()));
    }
  }
  // Legend: two columns of swatches, then the request.
  std::vector<std::pair<QColor, QString>> rows;
  for (const Part& part : m_parts)
    rows.emplace_back(part.color, tr("%1: %2").arg(part.name, bytesText(part.bytes)));
  if (m_request > 0)
    rows.emplace_back(m_request <= m_free ? QColor(0xe0, 0xa0, 0x30) : QColor(0xd0, 0x40, 0x30),
                      m_request <= m_free ? tr("requested: %1").arg(bytesText(m_request))
                                          : tr("requested: %1, more than is free").arg(bytesText(m_request)));
  // The scale, last: the capacity the log states, or what the bar is drawn against when it states none.
  rows.emplace_back(QColor(Qt::transparent),
                    m_capacity > 0
                        ? tr("the whole bar: %1 %2 (read)").arg(m_capacityName, bytesText(m_capacity))
                        : tr("capacity not stated: the bar adds up what the log states"));
  const double top = bar.bottom() + kGap + kRequestHeight + kGap;
  const double colWidth = bar.width() / 2;
  p.setPen(palette().color(QPalette::WindowText));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double cx = bar.left() + static_cast<double>(i % 2) * colWidth;
    const std::size_t row = i / 2;  // two entries a row
    const double cy = top + static_cast<double>(row) * kLegendRow;
    p.fillRect(QRectF(cx, cy + 3, 12, 12), rows[i].first);
    p.drawText(QRectF(cx + 18, cy, colWidth - 22, kLegendRow), Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(rows[i].second, Qt::ElideRight, static_cast<int>(colWidth - 22)));
  }
}

int DeviceBarWidget::partAt(QPointF pos) const {
  const QRectF bar = barRect();
  if (m_request > 0 && requestRect().contains(pos)) return static_cast<int>(m_parts.size());
  if (!bar.contains(pos)) return -1;
  const double perByte = bar.width() / static_cast<double>(m_scale);
  double x = bar.left();
  for (std::size_t i = 0; i < m_parts.size(); ++i) {
    x += static_cast<double>(m_parts[i].bytes) * perByte;
    if (pos.x() < x) return static_cast<int>(i);
  }
  return -1;
}

bool DeviceBarWidget::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const int i = partAt(help->pos());
  if (i < 0) {
    QToolTip::hideText();
    event->ignore();
    return true;
  }
  QString text;
  if (i == static_cast<int>(m_parts.size())) {
    text = m_request <= m_free
               ? tr("Requested %1 (read); %2 was free").arg(exactBytesText(m_request), bytesText(m_free))
               : tr("Requested %1 (read): more than the %2 free")
                     .arg(exactBytesText(m_request), bytesText(m_free));
  } else {
    const Part& part = m_parts[static_cast<std::size_t>(i)];
    text = tr("%1: %2 (%3)").arg(part.name, exactBytesText(part.bytes), part.provenance);
  }
  QToolTip::showText(help->globalPos(), text, this);
  return true;
}

}  // namespace oomscope::ui
