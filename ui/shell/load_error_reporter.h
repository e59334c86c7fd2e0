#pragma once
// The window's answer to a file that cannot be opened. The error keeps its kind, file and problem up to here
// (JobError); the box names the file and the problem and offers the action that fits the kind
// (ui/shell/load_error_box.h), and the status bar repeats the problem for ten seconds. The recent files keep
// a file that failed to load unless it is gone.

#include <QMessageBox>
#include <QObject>
#include <functional>

#include "ui/shell/load_error_box.h"

class QMainWindow;

namespace oomscope::ui {

class CaptureSession;

class LoadErrorReporter : public QObject {
  Q_OBJECT

 public:
  using Teller = std::function<void(QMessageBox::Icon icon, const QString& title, const QString& text)>;

  // Boxes open on window, whose status bar shows the problem; session says what is still open and retries
  // a capture.
  LoadErrorReporter(QMainWindow* window, CaptureSession* session);

  // Errors go to teller as text only, without a box's actions (tests: nothing waits for a click).
  void setTeller(Teller teller) { m_teller = std::move(teller); }

  // A capture's error (onPage false: Retry loads it again through the session), or that of a file a page
  // opens (Retry opens it again on the page).
  void report(const JobError& error, bool onPage);

 signals:
  // The box's "Open <companion>" or a page's Retry: the window opens path as it opens any file.
  void openRequested(const QString& path);
  // "Choose Another File...": the file dialog, starting in dir.
  void chooseRequested(const QString& dir);

 private:
  void runAction(LoadErrorAction action, const JobError& error, bool onPage);

  QMainWindow* m_window = nullptr;
  CaptureSession* m_session = nullptr;
  Teller m_teller;
};

}  // namespace oomscope::ui
