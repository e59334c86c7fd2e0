#pragma once
// The main window: File menu, status bar with progress and Cancel, and the pages as tabs.
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
#include <vector>

#include "ui/session/capture_session.h"
#include "ui/shell/load_error_box.h"

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QToolBar;
class QTreeView;

namespace oomscope::ui {

class AllocatorTableModel;
class AnalysisPages;
class EmptyStatePage;
class Exporter;
class HostsPage;
class ModuleTableModel;
class NavigatorModel;
class NavigatorSource;
class OverviewPage;
class PageFileOpener;
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
  QTabWidget* tabs() const { return m_tabs; }
  TablePage* modulesPage() const { return m_modulesPage; }
  TablePage* allocatorsPage() const { return m_allocatorsPage; }
  // Says which range the Allocators table covers, with one click to clear it.
  RangeBanner* allocatorsRangeBanner() const { return m_allocatorsRange; }
  OverviewPage* overviewPage() const { return m_overview; }
  // Diagnosis, Buffers, Plan, Timeline: built on a worker from the open capture
  // (ui/analysis/analysis_pages.h).
  AnalysisPages* analysis() const { return m_analysis; }
  // The navigator (files, hosts, modules, allocators) and its dock.
  NavigatorModel* navigator() const { return m_navigator; }
  QTreeView* navigatorView() const { return m_navigatorView; }
  QDockWidget* navigatorDock() const { return m_navigatorDock; }
  // The host selector (shown for multi-host runs) and the per-host comparison page.
  QComboBox* hostSelector() const { return m_hostSelector; }
  HostsPage* hostsPage() const { return m_hostsPage; }
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
  void createStatusBar();
  void connectSession();
  // Asks for files to open, starting in dir (empty: the folder last opened from).
  void chooseFile(const QString& dir = {});
  void chooseFolder();
  void focusFilter();
  void restoreWindowSettings();
  void saveWindowSettings();

  void onLoadStarted(const QString& path);
  void onProgress(double fraction, const QString& stage);
  void onLoaded(const LoadedCapture& loaded);
  // Fills the pages for one host of the open run (after a load or a host switch).
  void showHost(const LoadedCapture& loaded);
  void createNavigator();
  void fillRunViews();
  void onNavigatorCurrentChanged(const QModelIndex& index);
  void syncNavigatorWithResult();
  void selectInNavigator(const QModelIndex& index);
  void showAllocator(const QString& name);
  // A page's list (Live ranks, Simulator runs) in the navigator, in sync with the page both ways.
  void addNavigatorSource(NavigatorSource* source, QWidget* page);
  // Context menus and Ctrl+C on every table, export menus on every chart of the pages.
  void attachExports();
  void onLoadFailed(const JobError& error);
  // The box for a file that cannot be opened (a capture's, or a page's: then Retry opens the file again).
  void showLoadError(const JobError& error, bool onPage);
  void runLoadErrorAction(LoadErrorAction action, const JobError& error, bool onPage);
  // Hands path to the page that opens files of its kind, showing that page; false when no page takes it.
  bool openOnPage(const QString& path);
  // A file that is not a capture (a log, a PyTorch snapshot, a Kineto trace, ...) opens in a window of its
  // own.
  bool openInOwnWindow(const QString& path);
  void addPageFileOpener(PageFileOpener* opener, QWidget* page);
  void onLoadCancelled(const QString& path);
  void onClosed();

  void showCapturePages(bool haveModules, bool haveAllocators);
  // The Allocators table follows the analysis' time selection (main_window_range.cpp).
  void createAllocatorsRange();
  void syncAllocatorsWithRange();
  // Puts the analysis tabs after Overview; once a result is in, only those with something to show.
  void syncAnalysisTabs();
  void removeAnalysisTabs();
  void analyseModuleAt(const QModelIndex& index);
  void showEmptyState();
  void updateActions();
  void showLoadedStatus();
  void tell(QMessageBox::Icon icon, const QString& title, const QString& text);

  CaptureSession* m_session = nullptr;
  MessagePresenter m_presenter;
  bool m_customPresenter = false;
  FileChooser m_chooser;
  QString m_examplePath;

  QTabWidget* m_tabs = nullptr;
  EmptyStatePage* m_empty = nullptr;
  OverviewPage* m_overview = nullptr;
  ModuleTableModel* m_modules = nullptr;
  AllocatorTableModel* m_allocators = nullptr;
  TablePage* m_modulesPage = nullptr;
  TablePage* m_allocatorsPage = nullptr;
  RangeBanner* m_allocatorsRange = nullptr;
  AnalysisPages* m_analysis = nullptr;
  HostsPage* m_hostsPage = nullptr;
  Exporter* m_exporter = nullptr;
  QMenu* m_exportMenu = nullptr;
  std::vector<QWidget*> m_extraPages;

  NavigatorModel* m_navigator = nullptr;
  QTreeView* m_navigatorView = nullptr;
  QDockWidget* m_navigatorDock = nullptr;
  QToolBar* m_hostBar = nullptr;
  QComboBox* m_hostSelector = nullptr;
  std::vector<std::pair<NavigatorSource*, QWidget*>> m_sources;  // by the navigator's source number
  std::vector<std::pair<PageFileOpener*, QWidget*>> m_openers;
  bool m_syncing = false;  // the window is moving the navigator or the selector itself

  QLabel* m_status = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;

  QAction* m_closeAction = nullptr;
  QAction* m_reloadAction = nullptr;
  QAction* m_filterAction = nullptr;
};

}  // namespace oomscope::ui
