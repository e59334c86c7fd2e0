#include "ui/sim/transport_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>
#include <QToolButton>
#include <cmath>

#include "ui/sim/sim_format.h"

namespace oomscope::ui {

QToolButton* SimTransportBar::button(const QString& text, const QString& tip, int icon) {
  auto* b = new QToolButton;
  b->setText(text);
  b->setToolTip(tip);
  if (icon >= 0) b->setIcon(style()->standardIcon(QStyle::StandardPixmap(icon)));
  b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  b->setAutoRaise(false);
  layout()->addWidget(b);
  return b;
}

SimTransportBar::SimTransportBar(QWidget* parent) : QWidget(parent) {
  auto* h = new QHBoxLayout(this);
  h->setContentsMargins(0, 0, 0, 0);
  h->setSpacing(4);
  m_reset = button(tr("Reset"), tr("Back to the start (Home)"), QStyle::SP_MediaSkipBackward);
  m_back = button(tr("Back"), tr("Undo one attempt (Left)"), QStyle::SP_MediaSeekBackward);
  m_play = button(tr("Play"), tr("Play / pause (Space)"), QStyle::SP_MediaPlay);
  m_play->setCheckable(true);
  m_next = button(tr("Next"), tr("One attempt forward (Right)"), QStyle::SP_MediaSeekForward);
  m_end = button(tr("Run to end"), tr("Jump to the end of the run (End)"), QStyle::SP_MediaSkipForward);

  h->addSpacing(8);
  auto* speedCaption = new QLabel(tr("Speed"));
  h->addWidget(speedCaption);
  m_speed = new QSlider(Qt::Horizontal);
  m_speed->setRange(0, 100);  // logarithmic: 1 to 10,000 attempts per second
  m_speed->setFixedWidth(110);
  m_speed->setToolTip(tr("Attempts per second while playing"));
  h->addWidget(m_speed);
  m_speedLabel = new QLabel;
  m_speedLabel->setMinimumWidth(70);
  h->addWidget(m_speedLabel);

  h->addSpacing(8);
  m_position = new QLabel;
  m_position->setMinimumWidth(150);
  QFont bold = m_position->font();
  bold.setBold(true);
  m_position->setFont(bold);
  h->addWidget(m_position);
  h->addStretch(1);

  m_progress = new QProgressBar;
  m_progress->setRange(0, 1000);
  m_progress->setFixedWidth(180);
  m_progress->setTextVisible(true);
  m_progress->hide();
  h->addWidget(m_progress);
  m_cancel = new QToolButton;
  m_cancel->setText(tr("Cancel"));
  m_cancel->hide();
  h->addWidget(m_cancel);

  auto* fit = new QToolButton;
  fit->setText(tr("Fit"));
  fit->setToolTip(tr("Show the whole tree (double-click the tree does the same)"));
  h->addWidget(fit);
  auto* open = new QToolButton;
  open->setText(tr("Open trace…"));
  open->setToolTip(tr("A JSONL trace from `oomscope-cli simulate --trace` or a real run"));
  open->setPopupMode(QToolButton::MenuButtonPopup);
  auto* menu = new QMenu(open);
  menu->addAction(tr("Open as run A…"), this, [this] { emit openTraceRequested(0); });
  menu->addAction(tr("Open as run B (compare)…"), this, [this] { emit openTraceRequested(1); });
  menu->addAction(tr("Open a real run as A, predicted as B…"), this, [this] { emit openTraceRequested(2); });
  open->setMenu(menu);
  h->addWidget(open);

  connect(m_reset, &QToolButton::clicked, this, &SimTransportBar::resetRequested);
  connect(m_back, &QToolButton::clicked, this, &SimTransportBar::backRequested);
  connect(m_play, &QToolButton::toggled, this, &SimTransportBar::playToggled);
  connect(m_next, &QToolButton::clicked, this, &SimTransportBar::nextRequested);
  connect(m_end, &QToolButton::clicked, this, &SimTransportBar::endRequested);
  connect(fit, &QToolButton::clicked, this, &SimTransportBar::fitRequested);
  connect(open, &QToolButton::clicked, this, [this] { emit openTraceRequested(0); });
  connect(m_cancel, &QToolButton::clicked, this, &SimTransportBar::cancelRequested);
  connect(m_speed, &QSlider::valueChanged, this, [this] {
    const double s = speed();
    m_speedLabel->setText(s < 10 ? tr("%1 / s").arg(s, 0, 'f', 1)
                                 : tr("%1 / s").arg(simfmt::count(std::int64_t(s))));
  });
  setSpeedSlider(30);
}

double SimTransportBar::speed() const { return std::pow(10.0, double(m_speed->value()) / 25.0); }

void SimTransportBar::setSpeedSlider(int value) {
  m_speed->setValue(value);
  emit m_speed->valueChanged(value);
}

void SimTransportBar::setPlaying(bool playing) {
  if (m_play->isChecked() != playing) {
    const QSignalBlocker b(m_play);
    m_play->setChecked(playing);
  }
  m_play->setText(playing ? tr("Pause") : tr("Play"));
  m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

void SimTransportBar::setPosition(std::int64_t step, std::int64_t last) {
  m_position->setText(tr("Step %1 of %2").arg(simfmt::count(step), simfmt::count(last)));
  m_reset->setEnabled(step > 0);
  m_back->setEnabled(step > 0);
  m_next->setEnabled(step < last);
  m_end->setEnabled(step < last);
  m_play->setEnabled(step < last || m_play->isChecked());
}

void SimTransportBar::setBusy(bool busy) {
  m_progress->setVisible(busy);
  m_cancel->setVisible(busy);
  if (busy) setProgress(0, tr("simulating"));
}

void SimTransportBar::setProgress(double fraction, const QString& stage) {
  m_progress->setValue(int(fraction * 1000));
  m_progress->setFormat(stage + QStringLiteral(" %p%"));
}

}  // namespace oomscope::ui
