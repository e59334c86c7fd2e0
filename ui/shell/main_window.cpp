#include "ui/shell/main_window.h"

#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenuBar>
#include <QMimeData>
#include <QUrl>

#include "core/util/safe_text.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/hosts_page.h"
#include "ui/log/log_window.h"
#include "ui/models/navigator_model.h"
#include "ui/session/navigator_source.h"
#include "ui/session/page_file_opener.h"
#include "ui/session/safe_text_qt.h"
#include "ui/session/settings_store.h"
#include "ui/shell/allocators_range.h"
#include "ui/shell/app_icon.h"
#include "ui/shell/capture_tabs.h"
#include "ui/shell/empty_state_page.h"
#include "ui/shell/exporter.h"
#include "ui/shell/host_selector.h"
#include "ui/shell/load_error_box.h"
#include "ui/shell/load_error_reporter.h"
#include "ui/shell/load_status_bar.h"
#include "ui/shell/navigator_dock.h"
#include "ui/shell/navigator_view.h"
#include "ui/shell/open_dialogs.h"
#include "ui/shell/page_file_router.h"
#include "ui/shell/recent_files_menu.h"
#include "ui/snapshot/ranks_window.h"

namespace oomscope::ui {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");

// A file name as shown in titles and status lines: control characters (a crafted name could hold ESC or BEL)
// are written as visible escapes.
QString fileName(const QString& path) {
  return QString::fromStdString(single_line_safe(QFileInfo(path).fileName().toStdString()));
}

QStringList localFiles(const QMimeData* mime) {
  QStringList files;
  if (!mime || !mime->hasUrls()) return files;
  for (const QUrl& url : mime->urls()) {
    if (url.isLocalFile()) files << url.toLocalFile();
  }
  return files;
}

struct RegisteredPage {
  QString title;
  MainWindow::PageFactory factory;
};

std::vector<RegisteredPage>& registeredPages() {
  static std::vector<RegisteredPage> pages;
  return pages;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : MainWindow(new CaptureSession, parent) {}

MainWindow::MainWindow(CaptureSession* session, QWidget* parent) : QMainWindow(parent), m_session(session) {
  m_session->setParent(this);
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(QStringLiteral("oomscope"));
  setWindowIcon(appIcon());
  setAcceptDrops(true);

  m_pages = new CaptureTabs(this);
  setCentralWidget(m_pages);
  m_presenter = [this](QMessageBox::Icon icon, const QString& title, const QString& text) {
    openMessageBox(this, icon, title, text);
  };
  m_navigatorDock = new NavigatorDock(m_pages, this);
  addDockWidget(Qt::LeftDockWidgetArea, m_navigatorDock);
  connect(m_pages->analysis(), &AnalysisPages::resultChanged, this, &MainWindow::syncNavigatorWithResult);
  m_hostSelector = new HostSelector(this);
  addToolBar(Qt::TopToolBarArea, m_hostSelector);
  m_hostSelector->hide();
  m_allocatorsRange = new AllocatorsRange(m_pages->allocatorsPage(), m_pages->allocatorsModel(),
                                          m_pages->analysis(), m_session, this);
  m_errors = new LoadErrorReporter(this, m_session);
  m_router = new PageFileRouter(m_pages, this);
  m_dialogs = std::make_unique<OpenDialogs>(this);
  m_exporter = new Exporter(this, m_session, m_pages->analysis());
  m_exporter->setTeller(
      [this](const QString& title, const QString& text) { tell(QMessageBox::Warning, title, text); });
  m_pages->attachExports(m_exporter);
  createActions();
  m_status = new LoadStatusBar(m_session, this);
  setStatusBar(m_status);
  connectParts();
  connectSession();
  m_pages->showEmptyState();
  updateActions();

  for (const auto& page : registeredPages()) addPage(page.factory(*this), page.title);

  restoreWindowSettings();
}

void MainWindow::registerPage(const QString& title, PageFactory factory) {
  registeredPages().push_back({title, std::move(factory)});
}

void MainWindow::clearRegisteredPages() { registeredPages().clear(); }

MainWindow::~MainWindow() {
  // The pages go with the tabs below; their navigator lists must not be synced while they do.
  disconnect(m_pages, &QTabWidget::currentChanged, nullptr, nullptr);
  m_navigatorDock->forgetSources();
}

void MainWindow::addPage(QWidget* page, const QString& title) {
  m_pages->addTab(page, title);
  if (auto* source = page->findChild<NavigatorSource*>(QString(), Qt::FindDirectChildrenOnly))
    m_navigatorDock->addSource(source, page);
  if (auto* opener = page->findChild<PageFileOpener*>(QString(), Qt::FindDirectChildrenOnly))
    m_router->addOpener(opener, page);
}

void MainWindow::setExamplePath(const QString& path) {
  m_examplePath = path;
  m_pages->emptyPage()->setExamplePath(path);
}

void MainWindow::setMessagePresenter(MessagePresenter presenter) {
  m_presenter = std::move(presenter);
  m_errors->setTeller(
      [this](QMessageBox::Icon icon, const QString& title, const QString& text) { tell(icon, title, text); });
}

void MainWindow::setFileChooser(FileChooser chooser) { m_dialogs->setFileChooser(std::move(chooser)); }

const LoadedCapture& MainWindow::currentCapture() const { return m_session->current(); }
QTabWidget* MainWindow::tabs() const { return m_pages; }
TablePage* MainWindow::modulesPage() const { return m_pages->modulesPage(); }
TablePage* MainWindow::allocatorsPage() const { return m_pages->allocatorsPage(); }
RangeBanner* MainWindow::allocatorsRangeBanner() const { return m_allocatorsRange->banner(); }
OverviewPage* MainWindow::overviewPage() const { return m_pages->overviewPage(); }
AnalysisPages* MainWindow::analysis() const { return m_pages->analysis(); }
NavigatorModel* MainWindow::navigator() const { return m_navigatorDock->model(); }
QTreeView* MainWindow::navigatorView() const { return m_navigatorDock->view(); }
QDockWidget* MainWindow::navigatorDock() const { return m_navigatorDock; }
QComboBox* MainWindow::hostSelector() const { return m_hostSelector->comboBox(); }
HostsPage* MainWindow::hostsPage() const { return m_pages->hostsPage(); }
QString MainWindow::statusText() const { return m_status->text(); }

void MainWindow::tell(QMessageBox::Icon icon, const QString& title, const QString& text) {
  if (m_presenter) m_presenter(icon, title, text);
}

void MainWindow::createActions() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* open = file->addAction(tr("&Open\u2026"), this, [this] { chooseFile(); });
  open->setShortcut(QKeySequence::Open);
  auto* openFolder = file->addAction(tr("Open &Folder\u2026"), this, &MainWindow::chooseFolder);
  openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  openFolder->setToolTip(tr("Open a run folder: its .xplane.pb files, one per host, together"));
  auto* recent = new RecentFilesMenu(tr("Open &Recent"), file);
  connect(recent, &RecentFilesMenu::openRequested, this, &MainWindow::openRecent);
  file->addMenu(recent);
  file->addSeparator();
  m_exportMenu = file->addMenu(tr("&Export"));
  m_exportMenu->setObjectName(QStringLiteral("exportMenu"));
  connect(m_exportMenu, &QMenu::aboutToShow, this,
          [this] { m_exporter->fillMenu(m_exportMenu, m_pages->currentWidget()); });
  m_exporter->fillMenu(m_exportMenu, nullptr);
  file->addSeparator();
  m_reloadAction = file->addAction(tr("Re&load"), this, &MainWindow::reload);
  m_reloadAction->setShortcut(QKeySequence(Qt::Key_F5));
  m_closeAction = file->addAction(tr("&Close"), this, &MainWindow::closeCapture);
  m_closeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));  // QKeySequence::Quit is empty on some platforms
  quit->setMenuRole(QAction::QuitRole);

  auto* edit = menuBar()->addMenu(tr("&Edit"));
  auto* paste = edit->addAction(tr("&Paste Log"), this, &MainWindow::pasteLog);
  paste->setObjectName(QStringLiteral("pasteLogAction"));
  paste->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
  paste->setToolTip(
      tr("Read the log of a failed run from the clipboard: its out-of-memory messages and what they say"));

  auto* view = menuBar()->addMenu(tr("&View"));
  view->addAction(m_navigatorDock->toggleViewAction());
  m_filterAction = view->addAction(tr("&Filter Modules"), m_pages, &CaptureTabs::focusFilter);
  m_filterAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));

  auto* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About oomscope"), this, [this] {
    QMessageBox::about(this, tr("About oomscope"),
                       tr("<b>oomscope %1</b><p>A debugger for GPU out-of-memory failures in ML training: it "
                          "reads XProf captures and shows what filled the memory.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::connectParts() {
  AnalysisPages* analysis = m_pages->analysis();
  connect(m_pages->emptyPage(), &EmptyStatePage::openRequested, this, [this] { chooseFile(); });
  connect(m_pages->emptyPage(), &EmptyStatePage::openExampleRequested, this,
          [this] { openFile(m_examplePath); });
  connect(m_pages->emptyPage(), &EmptyStatePage::pasteLogRequested, this, &MainWindow::pasteLog);
  connect(m_pages->hostsPage(), &HostsPage::hostActivated, m_session, &CaptureSession::setCurrentHost);
  connect(analysis, &AnalysisPages::analysisFailed, this,
          [this](const QString& message) { statusBar()->showMessage(message, 10'000); });

  connect(m_navigatorDock, &NavigatorDock::hostChosen, this, [this](int host) {
    if (host != m_session->currentHost()) m_session->setCurrentHost(host);
  });
  connect(m_navigatorDock, &NavigatorDock::moduleChosen, m_pages, &CaptureTabs::showModule);
  connect(m_navigatorDock, &NavigatorDock::allocatorChosen, m_pages, &CaptureTabs::showAllocator);
  connect(m_navigatorDock, &NavigatorDock::modulesChosen, m_pages, &CaptureTabs::showModules);
  connect(m_navigatorDock, &NavigatorDock::allocatorsChosen, m_pages, &CaptureTabs::showAllocators);
  connect(m_hostSelector, &HostSelector::hostChosen, m_session, &CaptureSession::setCurrentHost);

  connect(m_errors, &LoadErrorReporter::openRequested, this, &MainWindow::openFile);
  connect(m_errors, &LoadErrorReporter::chooseRequested, this, &MainWindow::chooseFile);
  connect(m_router, &PageFileRouter::failed, this,
          [this](const JobError& error) { m_errors->report(error, /*onPage=*/true); });
  connect(m_exporter, &Exporter::exported, this,
          [this](const QString& path) { statusBar()->showMessage(tr("Exported %1").arg(path), 10'000); });
}

void MainWindow::connectSession() {
  connect(m_session, &CaptureSession::hostChanged, this, [this] { showHost(m_session->current()); });
  connect(m_session, &CaptureSession::loadStarted, m_status, &LoadStatusBar::showLoading);
  connect(m_session, &CaptureSession::progress, m_status, &LoadStatusBar::showProgress);
  connect(m_session, &CaptureSession::loaded, this, &MainWindow::onLoaded);
  connect(m_session, &CaptureSession::loadFailed, this, &MainWindow::onLoadFailed);
  connect(m_session, &CaptureSession::loadCancelled, this, &MainWindow::onLoadCancelled);
  connect(m_session, &CaptureSession::closed, this, &MainWindow::onClosed);
  connect(m_session, &CaptureSession::fileShrank, this, &MainWindow::onFileShrank);
  connect(m_session, &CaptureSession::busyChanged, this, [this](bool busy) {
    m_status->setBusy(busy);
    updateActions();
  });
}

void MainWindow::chooseFile(const QString& dir) {
  // Several files at once are one multi-host run (one file per host).
  const QStringList paths = m_dialogs->chooseFiles(dir, m_router->filters());
  if (!paths.isEmpty()) openFiles(paths);
}

void MainWindow::chooseFolder() {
  const QString dir = m_dialogs->chooseFolder();
  if (!dir.isEmpty()) openFile(dir);
}

void MainWindow::openFile(const QString& path) {
  if (path.isEmpty()) return;
  if (m_router->openOnPage(path)) return;
  if (QFileInfo(path).isDir()) {
    if (RanksWindow::openIfSnapshotFolder(path)) return;  // a job's per-rank snapshots, no capture
    m_session->openRun({path});
    return;
  }
  if (m_router->openInOwnWindow(path)) return;
  m_session->open(path);
}

void MainWindow::openFiles(const QStringList& paths) {
  if (RanksWindow::openIfSnapshots(paths)) return;  // several PyTorch snapshots: the ranks of one job?
  QStringList captures;
  for (const QString& path : paths) {
    if (path.isEmpty()) continue;
    if (m_router->openOnPage(path)) continue;  // a live recording: on the Live page
    if (m_router->openInOwnWindow(path)) continue;
    captures << path;
  }
  if (captures.size() == 1)
    openFile(captures.first());
  else if (!captures.isEmpty())
    m_session->openRun(captures);
}

void MainWindow::pasteLog() {
  const QString text = QGuiApplication::clipboard()->text();
  if (text.trimmed().isEmpty()) {
    m_status->setText(tr("The clipboard holds no text to read as a log."));
    return;
  }
  LogWindow::openText(text);
}

void MainWindow::openRecent(const QString& path) {
  if (!QFileInfo::exists(path)) {
    SettingsStore::instance().removeRecent(path);
    tell(QMessageBox::Information, tr("File not found"),
         tr("%1 no longer exists, so it was removed from the recent files.").arg(path));
    return;
  }
  openFile(path);
}

void MainWindow::closeCapture() { m_session->close(); }

void MainWindow::reload() { m_session->reload(); }

void MainWindow::onLoaded(const LoadedCapture& loaded) {
  fillRunViews();
  showHost(loaded);
  if (m_session->run().isMultiHost()) m_pages->setCurrentWidget(m_pages->hostsPage());
  for (const QString& input : m_session->run().inputs) SettingsStore::instance().addRecent(input);
  emit loadFinished(true);
}

void MainWindow::onLoadFailed(const JobError& error) {
  if (error.kind == ErrorKind::Cancelled) {  // a job that stopped itself: as a cancel, no box
    onLoadCancelled(error.subject);
    return;
  }
  m_status->showLoaded();
  m_errors->report(error, /*onPage=*/false);
  emit loadFinished(false);
}

void MainWindow::onLoadCancelled(const QString& path) {
  m_status->showCancelled(path);
  emit loadFinished(false);
}

void MainWindow::onClosed() {
  m_pages->clear();
  fillRunViews();
  m_pages->showEmptyState();
  setWindowTitle(QStringLiteral("oomscope"));
  m_status->showLoaded();
  updateActions();
  emit captureChanged(m_session->current());
}

void MainWindow::onFileShrank(const QString& path, const QString& message) {
  m_status->setText(tr("%1 shrank after loading: reload it once it is complete.").arg(fileName(path)));
  QString problem = message;
  if (problem.startsWith(path + QStringLiteral(": "))) problem = problem.mid(path.size() + 2);
  if (!problem.isEmpty()) problem[0] = problem[0].toUpper();
  tell(QMessageBox::Warning, tr("%1 changed on disk").arg(fileName(path)),
       QStringLiteral("%1\n\n%2").arg(QDir::toNativeSeparators(path), problem));
}

void MainWindow::fillRunViews() {
  const LoadedRun& run = m_session->run();
  m_navigatorDock->setRun(run);
  m_hostSelector->setRun(run);
  m_pages->hostsPage()->setRun(run);
}

void MainWindow::showHost(const LoadedCapture& loaded) {
  const bool multiHost = m_session->run().isMultiHost();
  m_pages->showCapture(loaded, multiHost);
  const int host = m_session->currentHost();
  m_hostSelector->setCurrentHost(host);
  m_navigatorDock->setCurrentHost(host, multiHost);

  const QString name = safeText(QFileInfo(loaded.path).fileName());
  setWindowTitle(multiHost ? tr("%1 \u2014 %2 \u2014 oomscope")
                                 .arg(name, safeText(QFileInfo(m_session->run().label).fileName()))
                           : tr("%1 \u2014 oomscope").arg(name));
  m_status->showLoaded();
  updateActions();
  emit captureChanged(loaded);
}

void MainWindow::syncNavigatorWithResult() {
  const auto result = m_pages->analysis()->result();
  if (!result || result->request.capture != m_session->current().capture) return;
  const int host = m_session->currentHost();
  const auto& report = *result->report;
  m_navigatorDock->setModulePlan(host, report.modules, result->defaultModule, result->defaultChoice);
  if (report.module_index)
    m_navigatorDock->select(navigator()->moduleIndex(host, report.modules[*report.module_index].program_id));
}

void MainWindow::updateActions() {
  const bool open = bool(m_session->current());
  m_closeAction->setEnabled(open || m_session->isLoading());
  m_reloadAction->setEnabled(open);
  m_filterAction->setEnabled(m_pages->showsModules());
}

void MainWindow::restoreWindowSettings() {
  const SettingsStore& store = SettingsStore::instance();
  if (!restoreGeometry(store.value(kGeometryKey).toByteArray())) resize(1200, 760);
  // restoreState() refuses a state saved with another version: the layout of docks and toolbars changed,
  // and restoring it would put them in the wrong places. Then the defaults stay.
  restoreState(store.value(kStateKey).toByteArray(), kWindowStateVersion);
}

void MainWindow::saveWindowSettings() {
  SettingsStore& store = SettingsStore::instance();
  store.setValue(kGeometryKey, saveGeometry());
  store.setValue(kStateKey, saveState(kWindowStateVersion));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!localFiles(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QStringList files = localFiles(event->mimeData());
  if (files.isEmpty()) return;
  event->acceptProposedAction();
  openFiles(files);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveWindowSettings();
  m_session->cancel();
  event->accept();
}

}  // namespace oomscope::ui
