#pragma once
// The stepping controls of the Simulator page: reset, back, play/pause with a speed, next, run to end,
// the position, the worker's progress with cancel, fit and opening a trace. It holds no state of its own
// beyond what it displays; the page owns the cursor.

#include <QWidget>
#include <cstdint>

class QLabel;
class QProgressBar;
class QSlider;
class QToolButton;

namespace oomscope::ui {

class SimTransportBar : public QWidget {
  Q_OBJECT

 public:
  explicit SimTransportBar(QWidget* parent = nullptr);

  void setPlaying(bool playing);
  void setPosition(std::int64_t step, std::int64_t last);
  void setBusy(bool busy);
  void setProgress(double fraction, const QString& stage);
  // Steps per second of Play.
  double speed() const;
  void setSpeedSlider(int value);

 signals:
  void resetRequested();
  void backRequested();
  void playToggled(bool play);
  void nextRequested();
  void endRequested();
  void fitRequested();
  void openTraceRequested(int slot);  // 0: as run A, 1: as run B, 2: a real run as A and its prediction as B
  void cancelRequested();

 private:
  QToolButton* button(const QString& text, const QString& tip, int icon);

  QToolButton* m_reset = nullptr;
  QToolButton* m_back = nullptr;
  QToolButton* m_play = nullptr;
  QToolButton* m_next = nullptr;
  QToolButton* m_end = nullptr;
  QSlider* m_speed = nullptr;
  QLabel* m_speedLabel = nullptr;
  QLabel* m_position = nullptr;
  QProgressBar* m_progress = nullptr;
  QToolButton* m_cancel = nullptr;
};

}  // namespace oomscope::ui
