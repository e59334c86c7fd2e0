#pragma once
// Which page or window opens which file. A page that opens files of its own kind (the Live page's
// recordings) owns a PageFileOpener (ui/session/page_file_opener.h): File > Open, the recent files and drops
// hand those files to it, in front. A file that is neither such a file nor a capture (a log, a PyTorch
// snapshot, a Kineto trace, ...) opens in a window of its own. What neither takes is a capture, for the
// main window.

#include <QObject>
#include <QStringList>
#include <utility>
#include <vector>

#include "ui/session/job_error.h"

class QTabWidget;
class QWidget;

namespace oomscope::ui {

class PageFileOpener;

class PageFileRouter : public QObject {
  Q_OBJECT

 public:
  // Puts a page in front of tabs when it takes a file.
  PageFileRouter(QTabWidget* tabs, QObject* parent);

  // page's opener takes the files it accepts from now on; a file it opened goes into the recent files.
  void addOpener(PageFileOpener* opener, QWidget* page);
  // The file dialog's filters of the pages' kinds of files.
  QStringList filters() const;
  // Hands path to the page that opens files of its kind, showing that page; false when no page takes it.
  bool openOnPage(const QString& path);
  // A file that is not a capture opens in a window of its own (a Log window or a snapshot window); false
  // for a capture, a run folder or a file XProf writes beside a capture (<host>.trace.json.gz goes to the
  // capture reader, whose error names the capture).
  bool openInOwnWindow(const QString& path);

 signals:
  // A page could not open a file it took.
  void failed(const oomscope::ui::JobError& error);

 private:
  QTabWidget* m_tabs = nullptr;
  std::vector<std::pair<PageFileOpener*, QWidget*>> m_openers;
};

}  // namespace oomscope::ui
