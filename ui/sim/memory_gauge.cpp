#include "ui/sim/memory_gauge.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_format.h"

namespace oomscope::ui {

SimMemoryGauge::SimMemoryGauge(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setMinimumHeight(66);
}

void SimMemoryGauge::clear(const QString& runLabel) {
  m_label = runLabel;
  m_has = false;
  m_event = -1;
  setToolTip({});
  update();
}

void SimMemoryGauge::setAttempt(const sim::Event* e, const QString& runLabel) {
  m_label = runLabel;
  if (!e) {
    clear(runLabel);
    return;
  }
  m_has = true;
  m_event = e->id;
  m_dropped = e->outcome == sim::Outcome::Dropped;
  m_needed = e->bytes_needed;
  m_available = e->available;
  m_budget = e->budget;
  setToolTip(
      QStringLiteral("Attempt #%1\nneeded %2\navailable %3\nbudget %4")
          .arg(e->id)
          .arg(simfmt::bytesExact(m_needed), simfmt::bytesExact(m_available), simfmt::bytesExact(m_budget)));
  update();
}

QString SimMemoryGauge::summary() const {
  if (!m_has) return tr("no attempt yet");
  if (m_dropped) return tr("#%1 dropped under the floor: no forward pass").arg(m_event);
  QString s = tr("#%1 needs %2 of %3 available")
                  .arg(m_event)
                  .arg(simfmt::bytes(m_needed), simfmt::bytes(m_available));
  if (m_available < m_budget) s += tr(" (%1 fragmented)").arg(simfmt::bytes(m_budget - m_available));
  return s;
}

void SimMemoryGauge::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, true);
  const QRectF r = rect().adjusted(1, 1, -1, -1);
  const QFontMetricsF fm(font());
  p.setPen(palette().color(QPalette::WindowText));
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  const double lineH = fm.height();
  p.drawText(QRectF(r.left(), r.top(), r.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter, m_label);
  p.setFont(font());
  const QColor textCol = overBudget() ? sim_style::overBudget() : palette().color(QPalette::WindowText);
  p.setPen(textCol);
  const QString s = summary();
  const QRectF textRect(r.left(), r.top() + lineH, r.width(), lineH);
  p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(s, Qt::ElideRight, textRect.width()));

  // The bar: full width is the larger of budget and need, so an over-budget bar visibly runs past the frame.
  const double barTop = textRect.bottom() + 4;
  const QRectF bar(r.left(), barTop, r.width(), std::max(14.0, std::min(24.0, r.bottom() - barTop)));
  const double scaleMax = double(std::max<std::int64_t>({m_budget, m_needed, 1})) * 1.04;
  auto xOf = [&](std::int64_t b) { return bar.left() + bar.width() * double(b) / scaleMax; };
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(0xee, 0xf0, 0xf3));
  p.drawRoundedRect(bar, 3, 3);
  if (!m_has) return;
  const QRectF budgetRect(bar.left(), bar.top(), xOf(m_budget) - bar.left(), bar.height());
  if (m_available < m_budget) {
    const QRectF frag(xOf(m_available), bar.top(), xOf(m_budget) - xOf(m_available), bar.height());
    p.setBrush(QBrush(QColor(0xb0, 0x7a, 0x10), Qt::BDiagPattern));
    p.drawRect(frag);
  }
  if (!m_dropped) {
    const QColor fill = m_needed > m_available ? sim_style::overBudget() : sim_style::withinBudget();
    p.setBrush(fill);
    p.drawRoundedRect(QRectF(bar.left(), bar.top() + 3, xOf(m_needed) - bar.left(), bar.height() - 6), 2, 2);
  }
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(QColor(0x30, 0x36, 0x3d), 1.5));
  p.drawRect(budgetRect);
  // Budget label inside the frame's right end.
  p.setPen(QColor(0x30, 0x36, 0x3d));
  QFont small = font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
  p.setFont(small);
  const QString budgetText = tr("budget %1").arg(simfmt::bytes(m_budget));
  const double tw = QFontMetricsF(small).horizontalAdvance(budgetText) + 6;
  const QRectF labelRect(budgetRect.right() - tw, bar.top(), tw, bar.height());
  p.setBrush(QColor(255, 255, 255, 200));
  p.setPen(Qt::NoPen);
  p.drawRect(labelRect.adjusted(0, 3, -2, -3));
  p.setPen(QColor(0x30, 0x36, 0x3d));
  p.drawText(labelRect, Qt::AlignCenter, budgetText);
}

}  // namespace oomscope::ui
