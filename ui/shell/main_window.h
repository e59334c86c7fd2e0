#pragma once
// The main window: the menus, and the parts it is built from, each a class of its own in ui/shell:
//   CaptureTabs      the pages as tabs (capture_tabs.h)         NavigatorDock   the navigator
//   (navigator_dock.h) HostSelector     the Hosts toolbar (host_selector.h)        LoadStatusBar   status,
//   progress, Cancel AllocatorsRange  the Allocators table under a range         LoadErrorReporter  a file
//   that cannot be opened PageFileRouter   which page or window opens which file      OpenDialogs     File >
//   Open's dialogs Exporter, RecentFilesMenu and EmptyStatePage (their headers)
// MainWindow composes them and connects them to the capture session and to each other.
//
// Capture pages (Overview, Modules, Allocators) appear only while a capture is open, and only when they
// have rows to show; with nothing open an empty-state page explains how to get a capture. Loading runs on a
// worker thread (CaptureSession); a failed or cancelled load leaves the open capture as it was.
//
// Extension hook for pages that do not depend on the open capture (the simulator). Either, in main() before
// any window exists, so that every window gets one (also those opened for extra files or drops):
//   MainWindow::registerPage(tr("Simulator"), [](MainWindow&) { return new SimulatorPage; });
// or, for one window:
//   window.addPage(new SimulatorPage, tr("Simulator"));
// The window takes ownership; the page is a tab after the capture pages and stays whatever is opened or
// closed. Pages that want the open capture connect to captureChanged() or read currentCapture(). A page that
// opens files of its own kind (the Live page's recordings) owns a PageFileOpener (ui/session/
// page_file_opener.h): File > Open, the recent files and drops then hand those files to it.

#include <QMainWindow>
#include <QMessageBox>
#include <functional>
#include <memory>
#include <vector>

#include "ui/session/capture_session.h"

class QAction;
class QComboBox;
class QDockWidget;
class QMenu;
class QTabWidget;
class QTreeView;

namespace oomscope::ui {

class AllocatorsRange;
class AnalysisPages;
class CaptureTabs;
class Exporter;
class HostSelector;
class HostsPage;
class LoadErrorReporter;
class LoadStatusBar;
class NavigatorDock;
class NavigatorModel;
class OpenDialogs;
class OverviewPage;
class PageFileRouter;
class RangeBanner;
class TablePage;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // How the window tells the user something (an error, a note). The default shows a non-blocking
  // QMessageBox; tests install a recorder so nothing waits for a click.
  using MessagePresenter =
      std::function<void(QMessageBox::Icon icon, const QString& title, const QString& text)>;
  // How the window asks for files to open (File > Open, "Choose Another File..." after an error), starting
  // in dir. The default is QFileDialog; tests install one that answers at once.
  using FileChooser = std::function<QStringList(const QString& dir)>;

  // The version saved with the window state (docks, toolbars); a state of another version is not restored.
  // Raise it whenever docks or toolbars are added, removed or renamed.
  static constexpr int kWindowStateVersion = 2;

  // Reads captures with capture::read_capture.
  explicit MainWindow(QWidget* parent = nullptr);
  // Reads captures through the given session (tests inject scripted loaders). Takes ownership.
  explicit MainWindow(CaptureSession* session, QWidget* parent = nullptr);
  ~MainWindow() override;

  using PageFactory = std::function<QWidget*(MainWindow& window)>;
  // Every MainWindow constructed afterwards adds factory(window) as a page; see the header comment.
  static void registerPage(const QString& title, PageFactory factory);
  static void clearRegisteredPages();  // for tests
  // Adds a page that does not depend on the open capture; see the header comment. Takes ownership.
  void addPage(QWidget* page, const QString& title);

  // A capture file, a run folder (its .xplane.pb files, one per host), a file a page opens (a live
  // recording: on the Live page) or another kind of file (opened in a window of its own).
  void openFile(const QString& path);
  // Capture files among paths open together as one multi-host run (one file per host); other kinds of files
  // (PyTorch snapshots, traces) each open in a window of their own.
  void openFiles(const QStringList& paths);
  // Edit > Paste Log: opens the text on the clipboard in a Log window (a status message when it holds none).
  void pasteLog();
  void closeCapture();
  void reload();
  // Opens a file from the recent list; one that no longer exists is dropped from the list, with a message.
  void openRecent(const QString& path);

  // Where the "Open the bundled example" button looks; empty disables it.
  void setExamplePath(const QString& path);
  // A presenter set here also receives load errors, as text only (the default box offers an action per
  // error kind: ui/shell/load_error_box.h).
  void setMessagePresenter(MessagePresenter presenter);
  void setFileChooser(FileChooser chooser);

  const LoadedCapture& currentCapture() const;
  CaptureSession& session() { return *m_session; }
  QTabWidget* tabs() const;
  TablePage* modulesPage() const;
  TablePage* allocatorsPage() const;
  // Says which range the Allocators table covers, with one click to clear it.
  RangeBanner* allocatorsRangeBanner() const;
  OverviewPage* overviewPage() const;
  // Diagnosis, Buffers, Plan, Timeline: built on a worker from the open capture
  // (ui/analysis/analysis_pages.h).
  AnalysisPages* analysis() const;
  // The navigator (files, hosts, modules, allocators) and its dock.
  NavigatorModel* navigator() const;
  QTreeView* navigatorView() const;
  QDockWidget* navigatorDock() const;
  // The host selector (shown for multi-host runs) and the per-host comparison page.
  QComboBox* hostSelector() const;
  HostsPage* hostsPage() const;
  // Export of tables, charts and the report (File > Export, context menus, Ctrl+C).
  Exporter* exporter() const { return m_exporter; }
  // The status bar's text (what is loaded, or what is loading).
  QString statusText() const;

 signals:
  // A new capture is shown, or the capture was closed (then capture is empty).
  void captureChanged(const oomscope::ui::LoadedCapture& capture);
  // Every load attempt ends with this: ok is false after an error or a cancel.
  void loadFinished(bool ok);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void createActions();
  void connectParts();
  void connectSession();
  // Asks for files to open, starting in dir (empty: the folder last opened from).
  void chooseFile(const QString& dir = {});
  void chooseFolder();
  void restoreWindowSettings();
  void saveWindowSettings();

  void onLoaded(const LoadedCapture& loaded);
  void onLoadFailed(const JobError& error);
  void onLoadCancelled(const QString& path);
  void onClosed();
  void onFileShrank(const QString& path, const QString& message);
  // The navigator, the host selector and the Hosts page for the open run.
  void fillRunViews();
  // Fills the pages for one host of the open run (after a load or a host switch).
  void showHost(const LoadedCapture& loaded);
  void syncNavigatorWithResult();
  void updateActions();
  void tell(QMessageBox::Icon icon, const QString& title, const QString& text);

  CaptureSession* m_session = nullptr;
  MessagePresenter m_presenter;
  std::unique_ptr<OpenDialogs> m_dialogs;
  QString m_examplePath;

  CaptureTabs* m_pages = nullptr;
  NavigatorDock* m_navigatorDock = nullptr;
  HostSelector* m_hostSelector = nullptr;
  LoadStatusBar* m_status = nullptr;
  AllocatorsRange* m_allocatorsRange = nullptr;
  LoadErrorReporter* m_errors = nullptr;
  PageFileRouter* m_router = nullptr;
  Exporter* m_exporter = nullptr;
  QMenu* m_exportMenu = nullptr;

  QAction* m_closeAction = nullptr;
  QAction* m_reloadAction = nullptr;
  QAction* m_filterAction = nullptr;
};

}  // namespace oomscope::ui
