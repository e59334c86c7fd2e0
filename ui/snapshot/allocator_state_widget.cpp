#include "ui/snapshot/allocator_state_widget.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

AllocatorStateWidget::AllocatorStateWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void AllocatorStateWidget::setState(std::shared_ptr<const snapshot::Snapshot> snap,
                                    std::shared_ptr<const snapshot::AllocatorState> state) {
  m_snap = std::move(snap);
  m_state = std::move(state);
  m_order.clear();
  if (m_state) {
    for (std::size_t i = 0; i < m_state->segments.size(); ++i) m_order.push_back(i);
    std::stable_sort(m_order.begin(), m_order.end(), [&](std::size_t a, std::size_t b) {
      return m_state->segments[a].size > m_state->segments[b].size;
    });
  }
  setMinimumHeight(sizeHint().height());
  updateGeometry();
  update();
}

QSize AllocatorStateWidget::sizeHint() const {
  return {900, kTop * 2 + kRow * static_cast<int>(std::max<std::size_t>(1, m_order.size()))};
}

double AllocatorStateWidget::scale() const {
  if (!m_state || m_order.empty()) return 1.0;
  const double largest = static_cast<double>(m_state->segments[m_order.front()].size);
  return (width() - kLabel - 12) / std::max(1.0, largest);
}

void AllocatorStateWidget::paintEvent(QPaintEvent* event) {
  QPainter p(this);
  if (!m_state || m_order.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("No segments at this event"));
    return;
  }
  const double k = scale();
  const QRect visible = event->rect();
  for (std::size_t row = 0; row < m_order.size(); ++row) {
    const int y = kTop + static_cast<int>(row) * kRow;
    if (y + kRow < visible.top() || y > visible.bottom()) continue;
    const auto& s = m_state->segments[m_order[row]];
    p.setPen(palette().text().color());
    p.drawText(QRect(4, y, kLabel - 10, kRow - 2), Qt::AlignRight | Qt::AlignVCenter,
               QStringLiteral("%1 %2").arg(bytesText(s.size), s.large ? tr("large") : tr("small")));
    const QRectF bar(kLabel, y + 2, std::max(2.0, static_cast<double>(s.size) * k), kRow - 5);
    p.fillRect(bar, QColor(232, 232, 236));
    for (const auto& b : s.blocks) {
      const double x = kLabel + static_cast<double>(b.addr - s.address) * k;
      const double used = std::max(1.0, static_cast<double>(b.requested) * k);
      const double whole = std::max(used, static_cast<double>(b.size) * k);
      const QColor c = b.pending_free ? QColor(210, 40, 40)
                                      : QColor::fromHsv(static_cast<int>((b.addr >> 9) * 37 % 360), 110, 215);
      p.fillRect(QRectF(x, bar.top(), used, bar.height()), c);
      if (whole > used)
        p.fillRect(QRectF(x + used, bar.top(), whole - used, bar.height()), QColor(245, 150, 60));
    }
    p.setPen(QColor(150, 150, 155));
    p.drawRect(bar);
  }
}

QString AllocatorStateWidget::describeAt(QPoint pos) const {
  if (!m_state || m_order.empty()) return {};
  const int row = (pos.y() - kTop) / kRow;
  if (pos.y() < kTop || row < 0 || static_cast<std::size_t>(row) >= m_order.size()) return {};
  const auto& s = m_state->segments[m_order[static_cast<std::size_t>(row)]];
  QString text = tr("segment 0x%1: %2 (%3 pool), %4 live blocks, %5 free, largest free %6")
                     .arg(s.address, 0, 16)
                     .arg(bytesWithExact(s.size), s.large ? tr("large") : tr("small"))
                     .arg(s.blocks.size())
                     .arg(bytesText(s.free_bytes), bytesText(s.largest_free));
  const double k = scale();
  const double offset = (pos.x() - kLabel) / k;
  for (const auto& b : s.blocks) {
    const double start = static_cast<double>(b.addr - s.address);
    if (offset >= start && offset < start + static_cast<double>(std::max(b.size, b.requested))) {
      text += tr("\nblock 0x%1: %2 requested, %3 rounded%4")
                  .arg(b.addr, 0, 16)
                  .arg(bytesWithExact(b.requested), bytesText(b.size),
                       b.pending_free ? tr(", freed, pending a stream event") : QString());
      if (m_snap) {
        const auto& ids = m_snap->frames_of(b.frames);
        for (std::size_t i = 0; i < ids.size() && i < 8; ++i) {
          const auto& f = m_snap->frames[ids[i]];
          text +=
              QStringLiteral("\n  %1:%2 in %3").arg(safeText(f.filename)).arg(f.line).arg(safeText(f.name));
        }
      }
      break;
    }
  }
  return text;
}

void AllocatorStateWidget::mouseMoveEvent(QMouseEvent* event) {
  const QString text = describeAt(event->pos());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

}  // namespace oomscope::ui
