#include "ui/analysis/range_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace oomscope::ui {

RangeBanner::RangeBanner(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("rangeBanner"));
  setFrameShape(QFrame::StyledPanel);
  setStyleSheet(
      QStringLiteral("#rangeBanner { background: #dbeafe; border: 1px solid #93c5fd; border-radius: 4px; }"));
  m_label = new QLabel(this);
  m_label->setWordWrap(true);
  m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_clear = new QPushButton(tr("Clear selection"), this);
  m_clear->setObjectName(QStringLiteral("clearRange"));
  m_clear->setToolTip(tr("Show the whole capture again"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 8, 4);
  layout->addWidget(m_label, 1);
  layout->addWidget(m_clear);
  connect(m_clear, &QPushButton::clicked, this, &RangeBanner::clearRequested);
  setVisible(false);
}

void RangeBanner::setText(const QString& text) {
  m_label->setText(text);
  setVisible(!text.isEmpty());
}

QString RangeBanner::text() const { return m_label->text(); }

}  // namespace oomscope::ui
