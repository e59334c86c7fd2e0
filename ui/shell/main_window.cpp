#include "ui/shell/main_window.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <algorithm>

#include "core/capture/companion.h"
#include "core/util/bytes.h"
#include "core/util/safe_text.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/buffers_page.h"
#include "ui/analysis/column_widths.h"
#include "ui/analysis/diagnosis_page.h"
#include "ui/analysis/hosts_page.h"
#include "ui/analysis/overview_page.h"
#include "ui/analysis/table_page.h"
#include "ui/models/capture_rows.h"
#include "ui/models/capture_table_models.h"
#include "ui/session/navigator_source.h"
#include "ui/session/page_file_opener.h"
#include "ui/session/safe_text_qt.h"
#include "ui/session/settings_store.h"
#include "ui/shell/app_icon.h"
#include "ui/shell/empty_state_page.h"
#include "ui/shell/exporter.h"
#include "ui/shell/recent_files_menu.h"
#include "ui/snapshot/ranks_window.h"
#include "ui/snapshot/snapshot_window.h"

namespace oomscope::ui {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");

// A file name as shown in titles and status lines: control characters (a crafted name could hold ESC or BEL)
// are written as visible escapes.
QString fileName(const QString& path) {
  return QString::fromStdString(single_line_safe(QFileInfo(path).fileName().toStdString()));
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

  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("pages"));
  m_tabs->setDocumentMode(true);
  m_tabs->setTabBarAutoHide(true);
  setCentralWidget(m_tabs);

  // Pages live as hidden children of the window while they are not tabs; a tab reparents them.
  m_empty = new EmptyStatePage(this);
  m_empty->hide();
  connect(m_empty, &EmptyStatePage::openRequested, this, [this] { chooseFile(); });
  connect(m_empty, &EmptyStatePage::openExampleRequested, this, [this] { openFile(m_examplePath); });
  connect(m_empty, &EmptyStatePage::pasteLogRequested, this, &MainWindow::pasteLog);

  m_overview = new OverviewPage(this);
  m_overview->hide();

  m_modules = new ModuleTableModel(this);
  m_modulesPage = new TablePage(
      m_modules,
      {tr("module"), true, tr("Filter by module name or program id (Ctrl+F)"),
       tr("Sizes are summed over each module's buffer assignment (memory space 0) in the HloProtos read from "
          "/host:metadata; \u2014 means the module carries no buffer assignment. Hover a column header for "
          "what it counts."),
       ModuleTableModel::TotalAllocation, Qt::DescendingOrder},
      this);
  m_modulesPage->setObjectName(QStringLiteral("modulesPage"));
  m_modulesPage->view()->setObjectName(QStringLiteral("modulesView"));
  m_modulesPage->hide();

  m_allocators = new AllocatorTableModel(this);
  m_allocatorsPage = new TablePage(
      m_allocators,
      {tr("allocator"),
       false,
       {},
       tr("Counts, Max in use and Capacity are derived from the MemoryAllocation / MemoryDeallocation events "
          "recorded during the capture; Lifetime peak is the allocator's own figure and can predate the "
          "capture. Hover a column header for details."),
       AllocatorTableModel::MaxInUse,
       Qt::DescendingOrder},
      this);
  m_allocatorsPage->setObjectName(QStringLiteral("allocatorsPage"));
  m_allocatorsPage->view()->setObjectName(QStringLiteral("allocatorsView"));
  m_allocatorsPage->hide();

  m_presenter = [this](QMessageBox::Icon icon, const QString& title, const QString& text) {
    openMessageBox(this, icon, title, text);
  };

  m_hostsPage = new HostsPage(this);
  m_hostsPage->hide();
  connect(m_hostsPage, &HostsPage::hostActivated, m_session, &CaptureSession::setCurrentHost);

  m_analysis = new AnalysisPages(this);
  for (const auto& [page, title] : m_analysis->pages()) page->hide();
  connect(m_analysis, &AnalysisPages::resultChanged, this, &MainWindow::syncAnalysisTabs);
  connect(m_analysis, &AnalysisPages::analysisFailed, this,
          [this](const QString& message) { statusBar()->showMessage(message, 10'000); });
  // Double-clicking a module analyses it and shows its diagnosis.
  connect(m_modulesPage->view(), &QAbstractItemView::doubleClicked, this, &MainWindow::analyseModuleAt);

  createNavigator();
  createAllocatorsRange();
  // Column widths the user sets are kept per table, across runs.
  ColumnWidthKeeper::attach(m_modulesPage->view(), QStringLiteral("modules"));
  ColumnWidthKeeper::attach(m_allocatorsPage->view(), QStringLiteral("allocators"));
  ColumnWidthKeeper::attach(m_hostsPage->table()->view(), QStringLiteral("hosts"));
  if (auto* buffers = m_analysis->buffersPage())
    ColumnWidthKeeper::attach(buffers->view(), QStringLiteral("buffers"));
  m_exporter = new Exporter(this, m_session, m_analysis);
  m_exporter->setTeller(
      [this](const QString& title, const QString& text) { tell(QMessageBox::Warning, title, text); });
  connect(m_exporter, &Exporter::exported, this,
          [this](const QString& path) { statusBar()->showMessage(tr("Exported %1").arg(path), 10'000); });
  attachExports();
  createActions();
  createStatusBar();
  connectSession();
  showEmptyState();
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
  disconnect(m_tabs, &QTabWidget::currentChanged, nullptr, nullptr);
  m_sources.clear();
}

void MainWindow::addPage(QWidget* page, const QString& title) {
  m_extraPages.push_back(page);
  m_tabs->addTab(page, title);
  if (auto* source = page->findChild<NavigatorSource*>(QString(), Qt::FindDirectChildrenOnly))
    addNavigatorSource(source, page);
  if (auto* opener = page->findChild<PageFileOpener*>(QString(), Qt::FindDirectChildrenOnly))
    addPageFileOpener(opener, page);
}

void MainWindow::setExamplePath(const QString& path) {
  m_examplePath = path;
  m_empty->setExamplePath(path);
}

void MainWindow::setMessagePresenter(MessagePresenter presenter) {
  m_presenter = std::move(presenter);
  m_customPresenter = true;
}

void MainWindow::setFileChooser(FileChooser chooser) { m_chooser = std::move(chooser); }

const LoadedCapture& MainWindow::currentCapture() const { return m_session->current(); }

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
          [this] { m_exporter->fillMenu(m_exportMenu, m_tabs->currentWidget()); });
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
  m_filterAction = view->addAction(tr("&Filter Modules"), this, &MainWindow::focusFilter);
  m_filterAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));

  auto* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About oomscope"), this, [this] {
    QMessageBox::about(this, tr("About oomscope"),
                       tr("<b>oomscope %1</b><p>A debugger for GPU out-of-memory failures in ML training: it "
                          "reads XProf captures and shows what filled the memory.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::createStatusBar() {
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("statusText"));
  m_status->setTextFormat(Qt::PlainText);  // file names are shown as they are, never read as markup
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("loadProgress"));
  m_progress->setRange(0, 1000);
  m_progress->setMaximumWidth(220);
  m_progress->setFormat(QStringLiteral("%p%"));
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("cancelButton"));
  m_cancel->setToolTip(tr("Stop loading (Esc); the capture open before stays open."));
  m_cancel->setShortcut(QKeySequence(Qt::Key_Escape));
  connect(m_cancel, &QPushButton::clicked, m_session, &CaptureSession::cancel);
  statusBar()->addWidget(m_status, 1);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  m_progress->hide();
  m_cancel->hide();
  m_status->setText(tr("No capture open."));
}

void MainWindow::connectSession() {
  connect(m_session, &CaptureSession::loadStarted, this, &MainWindow::onLoadStarted);
  connect(m_session, &CaptureSession::progress, this, &MainWindow::onProgress);
  connect(m_session, &CaptureSession::loaded, this, &MainWindow::onLoaded);
  connect(m_session, &CaptureSession::loadFailed, this, &MainWindow::onLoadFailed);
  connect(m_session, &CaptureSession::loadCancelled, this, &MainWindow::onLoadCancelled);
  connect(m_session, &CaptureSession::closed, this, &MainWindow::onClosed);
  connect(m_session, &CaptureSession::fileShrank, this, [this](const QString& path, const QString& message) {
    m_status->setText(tr("%1 shrank after loading: reload it once it is complete.").arg(fileName(path)));
    QString problem = message;
    if (problem.startsWith(path + QStringLiteral(": "))) problem = problem.mid(path.size() + 2);
    if (!problem.isEmpty()) problem[0] = problem[0].toUpper();
    tell(QMessageBox::Warning, tr("%1 changed on disk").arg(fileName(path)),
         QStringLiteral("%1\n\n%2").arg(QDir::toNativeSeparators(path), problem));
  });
  connect(m_session, &CaptureSession::busyChanged, this, [this](bool busy) {
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    updateActions();
  });
}

void MainWindow::openFile(const QString& path) {
  if (path.isEmpty()) return;
  if (openOnPage(path)) return;
  if (QFileInfo(path).isDir()) {
    if (RanksWindow::openIfSnapshotFolder(path)) return;  // a job's per-rank snapshots, no capture
    m_session->openRun({path});
    return;
  }
  // PyTorch snapshots, Kineto traces, ... (by content) open in a window of their own; a file XProf writes
  // beside a capture (<host>.trace.json.gz) goes to the capture reader, whose error names the capture.
  if (openInOwnWindow(path)) return;
  m_session->open(path);
}

void MainWindow::closeCapture() { m_session->close(); }

void MainWindow::reload() { m_session->reload(); }

void MainWindow::focusFilter() {
  if (m_tabs->indexOf(m_modulesPage) < 0) return;
  m_tabs->setCurrentWidget(m_modulesPage);
  m_modulesPage->focusFilter();
}

void MainWindow::onLoadStarted(const QString& path) {
  m_progress->setValue(0);
  m_status->setText(tr("Loading %1\u2026").arg(fileName(path)));
}

void MainWindow::onProgress(double fraction, const QString& stage) {
  m_progress->setValue(int(qBound(0.0, fraction, 1.0) * 1000));
  const QString name = fileName(m_session->loadingPath());
  m_status->setText(stage.isEmpty() ? tr("Loading %1\u2026").arg(name)
                                    : tr("Loading %1: %2\u2026").arg(name, stage));
}

void MainWindow::onLoaded(const LoadedCapture& loaded) {
  fillRunViews();
  showHost(loaded);
  if (m_session->run().isMultiHost()) m_tabs->setCurrentWidget(m_hostsPage);
  for (const QString& input : m_session->run().inputs) SettingsStore::instance().addRecent(input);
  emit loadFinished(true);
}

void MainWindow::onClosed() {
  m_overview->clear();
  m_modules->setRows({});
  m_allocators->setRows({});
  m_analysis->setCapture(nullptr);
  fillRunViews();
  showEmptyState();
  setWindowTitle(QStringLiteral("oomscope"));
  showLoadedStatus();
  updateActions();
  emit captureChanged(m_session->current());
}

void MainWindow::showCapturePages(bool haveModules, bool haveAllocators) {
  QWidget* previous = m_tabs->currentWidget();
  for (QWidget* page :
       {static_cast<QWidget*>(m_empty), static_cast<QWidget*>(m_hostsPage), static_cast<QWidget*>(m_overview),
        static_cast<QWidget*>(m_modulesPage), static_cast<QWidget*>(m_allocatorsPage)}) {
    if (int i = m_tabs->indexOf(page); i >= 0) m_tabs->removeTab(i);
  }
  removeAnalysisTabs();  // syncAnalysisTabs() puts them back after the Overview
  int at = 0;
  // A multi-host run leads with the comparison: which host ran out first.
  if (m_session->run().isMultiHost()) m_tabs->insertTab(at++, m_hostsPage, tr("Hosts"));
  m_tabs->insertTab(at++, m_overview, tr("Overview"));
  if (haveModules) m_tabs->insertTab(at++, m_modulesPage, tr("Modules"));
  if (haveAllocators) m_tabs->insertTab(at++, m_allocatorsPage, tr("Allocators"));
  syncAnalysisTabs();
  // A reload keeps the page the user was looking at.
  m_tabs->setCurrentWidget(previous && m_tabs->indexOf(previous) >= 0 && previous != m_empty ? previous
                                                                                             : m_overview);
}

void MainWindow::showEmptyState() {
  for (QWidget* page : {static_cast<QWidget*>(m_hostsPage), static_cast<QWidget*>(m_overview),
                        static_cast<QWidget*>(m_modulesPage), static_cast<QWidget*>(m_allocatorsPage)}) {
    if (int i = m_tabs->indexOf(page); i >= 0) m_tabs->removeTab(i);
  }
  removeAnalysisTabs();
  if (m_tabs->indexOf(m_empty) < 0) m_tabs->insertTab(0, m_empty, tr("Start"));
  m_tabs->setCurrentWidget(m_empty);
}

void MainWindow::removeAnalysisTabs() {
  for (const auto& [page, title] : m_analysis->pages()) {
    if (int i = m_tabs->indexOf(page); i >= 0) m_tabs->removeTab(i);
  }
}

void MainWindow::syncAnalysisTabs() {
  if (m_tabs->indexOf(m_overview) < 0) return;  // nothing open
  QWidget* current = m_tabs->currentWidget();
  // Design order (docs/architecture.md): Timeline, Plan, Buffers, Diagnosis; Diagnosis leads, after Overview,
  // because it is what a user whose run just died reads first.
  auto pages = m_analysis->pages();
  std::reverse(pages.begin(), pages.end());
  int at = m_tabs->indexOf(m_overview) + 1;
  for (const auto& [page, title] : pages) {
    const int i = m_tabs->indexOf(page);
    // Until the first result arrives every page stays, showing that it is working.
    const bool show = m_analysis->hasContent(page) || !m_analysis->result();
    if (show && i < 0) m_tabs->insertTab(at, page, title);
    if (!show && i >= 0) m_tabs->removeTab(i);
    if (show) ++at;
  }
  if (current && m_tabs->indexOf(current) >= 0) m_tabs->setCurrentWidget(current);
}

void MainWindow::analyseModuleAt(const QModelIndex& index) {
  if (!index.isValid()) return;
  const QVariant id = index.siblingAtColumn(ModuleTableModel::ProgramId).data(RecordTableModel::SortRole);
  m_analysis->selectProgram(id.toULongLong());
  if (QWidget* diagnosis = m_analysis->diagnosisPage(); diagnosis && m_tabs->indexOf(diagnosis) >= 0)
    m_tabs->setCurrentWidget(diagnosis);
}

void MainWindow::updateActions() {
  const bool open = bool(m_session->current());
  m_closeAction->setEnabled(open || m_session->isLoading());
  m_reloadAction->setEnabled(open);
  m_filterAction->setEnabled(m_tabs->indexOf(m_modulesPage) >= 0);
}

void MainWindow::showLoadedStatus() {
  const auto& current = m_session->current();
  if (!current) {
    m_status->setText(tr("No capture open."));
    return;
  }
  const auto& capture = *current.capture;
  const auto plural = [](std::size_t n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(QLocale().toString(qulonglong(n)), n == 1 ? one : many);
  };
  const double s = m_session->run().isMultiHost() ? m_session->run().loadSeconds : current.loadSeconds;
  const QString took =
      s < 1.0 ? tr("%1 ms").arg(qMax(1, qRound(s * 1000))) : tr("%1 s").arg(QLocale().toString(s, 'f', 1));
  const auto& run = m_session->run();
  const QString host =
      run.isMultiHost() ? tr("host %1 of %2 \u00b7 ").arg(m_session->currentHost() + 1).arg(run.hosts.size())
                        : QString();
  m_status->setText(host + tr("%1 \u00b7 %2 \u00b7 %3, %4 \u00b7 loaded in %5")
                               .arg(fileName(current.path),
                                    QString::fromStdString(format_bytes(std::uint64_t(capture.file_size()))),
                                    plural(capture.modules().size(), tr("module"), tr("modules")),
                                    plural(capture.allocators().size(), tr("allocator"), tr("allocators")),
                                    took));
  m_status->setToolTip(plainToolTip(QFileInfo(current.path).absoluteFilePath()));
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

void MainWindow::closeEvent(QCloseEvent* event) {
  saveWindowSettings();
  m_session->cancel();
  event->accept();
}

}  // namespace oomscope::ui
