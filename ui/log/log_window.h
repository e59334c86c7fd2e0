#pragma once
// A window for one log of a failed run (a file, or text pasted from the clipboard): the out-of-memory
// messages it holds, by rank or process when there are several, and for the message chosen: the device as a
// bar (what the framework allocated and reserved, other processes, free, the request), the diagnosis with its
// fixes, the peak buffers of an XLA dump, every figure read or derived, and the whole report as the CLI
// prints it. Reading runs on a worker (JobTracker) with progress and Cancel.

#include <QMainWindow>
#include <memory>

#include "ui/log/log_document.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace oomscope::ui {

class DeviceBarWidget;
class JobTracker;
class LogBuffersModel;
class LogFiguresModel;
class LogMessagesModel;

class LogWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit LogWindow(QWidget* parent = nullptr);
  ~LogWindow() override;

  // A new window (deleted when closed) that reads `path`, or the pasted `text`.
  static LogWindow* openFile(const QString& path);
  static LogWindow* openText(const QString& text);

  void load(const QString& path);
  void loadText(const QString& text);
  void cancel();
  void setDocument(std::shared_ptr<const LogDocument> doc);  // shows it now (tests)
  const std::shared_ptr<const LogDocument>& document() const { return m_doc; }

  // Shows message `index` (in the log's order) in the detail pane.
  void selectMessage(int index);
  int selectedMessage() const { return m_selected; }

  JobTracker* jobs() const { return m_jobs; }
  QTableView* messageView() const { return m_messages; }
  LogMessagesModel* messageModel() const { return m_messageModel; }
  LogBuffersModel* buffersModel() const { return m_buffersModel; }
  LogFiguresModel* figuresModel() const { return m_figuresModel; }
  DeviceBarWidget* deviceBar() const { return m_bar; }
  QTabWidget* detailTabs() const { return m_tabs; }
  QPlainTextEdit* diagnosisText() const { return m_diagnosis; }
  QPlainTextEdit* reportText() const { return m_report; }
  QLabel* summary() const { return m_summary; }

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  QWidget* buildDetail();
  void startJob(const QString& subject,
                std::function<std::shared_ptr<const LogDocument>(ProgressSink&, std::stop_token)> work);

  std::shared_ptr<const LogDocument> m_doc;
  int m_selected = -1;
  JobTracker* m_jobs = nullptr;
  QStackedWidget* m_stack = nullptr;
  QLabel* m_empty = nullptr;
  QLabel* m_summary = nullptr;
  QTableView* m_messages = nullptr;
  QSortFilterProxyModel* m_sorted = nullptr;
  LogMessagesModel* m_messageModel = nullptr;
  QLabel* m_heading = nullptr;
  DeviceBarWidget* m_bar = nullptr;
  QTabWidget* m_tabs = nullptr;
  QPlainTextEdit* m_diagnosis = nullptr;
  QTableView* m_buffers = nullptr;
  LogBuffersModel* m_buffersModel = nullptr;
  LogFiguresModel* m_figuresModel = nullptr;
  QPlainTextEdit* m_report = nullptr;
  QLabel* m_status = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
};

}  // namespace oomscope::ui
