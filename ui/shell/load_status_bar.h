#pragma once
// The main window's status bar: what is open (file, size, modules, allocators, load time; the host of a
// multi-host run) or what is loading, with a progress bar and Cancel (Esc) while a load runs. Messages for a
// while (an export, an error) use QStatusBar::showMessage over it.

#include <QStatusBar>

class QLabel;
class QProgressBar;
class QPushButton;

namespace oomscope::ui {

class CaptureSession;

class LoadStatusBar : public QStatusBar {
  Q_OBJECT

 public:
  // Says what session has open or is loading; Cancel cancels its load.
  LoadStatusBar(CaptureSession* session, QWidget* parent);

  QString text() const;
  void setText(const QString& text);

  void showLoading(const QString& path);
  // fraction of the load done, at stage (empty: none named).
  void showProgress(double fraction, const QString& stage);
  // The progress bar and Cancel show while busy.
  void setBusy(bool busy);
  // What is open (the current host of the run), or "No capture open.".
  void showLoaded();
  // What is open, after saying that loading path was cancelled.
  void showCancelled(const QString& path);

 private:
  CaptureSession* m_session = nullptr;
  QLabel* m_text = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
};

}  // namespace oomscope::ui
