// MainWindow: the navigator dock, the host selector and the pages of one host of the open run.
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>

#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/diagnosis_page.h"
#include "ui/analysis/hosts_page.h"
#include "ui/analysis/overview_page.h"
#include "ui/analysis/table_page.h"
#include "ui/models/capture_rows.h"
#include "ui/models/capture_table_models.h"
#include "ui/models/navigator_model.h"
#include "ui/models/table_filter_proxy.h"
#include "ui/session/navigator_source.h"
#include "ui/session/safe_text_qt.h"
#include "ui/shell/main_window.h"
#include "ui/shell/navigator_view.h"

namespace oomscope::ui {

namespace {

QString safeName(const QString& text) { return safeText(text); }

// "host-a (host-a.xplane.pb)" for the selector.
QString hostLabel(const LoadedCapture& host) {
  const auto& names = host.capture->hostnames();
  const QString file = safeName(QFileInfo(host.path).fileName());
  if (names.empty()) return file;
  return QStringLiteral("%1 (%2)").arg(safeName(QString::fromStdString(names.front())), file);
}

}  // namespace

void MainWindow::createNavigator() {
  m_navigator = new NavigatorModel(this);
  m_navigatorView = new NavigatorView(this);
  m_navigatorView->setObjectName(QStringLiteral("navigatorView"));
  m_navigatorView->setModel(m_navigator);
  m_navigatorView->setUniformRowHeights(true);
  m_navigatorView->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_navigatorView->header()->setStretchLastSection(false);
  m_navigatorView->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  m_navigatorView->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  m_navigatorView->setIndentation(12);
  connect(m_navigatorView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { onNavigatorCurrentChanged(current); });

  m_navigatorDock = new QDockWidget(tr("Navigator"), this);
  m_navigatorDock->setObjectName(QStringLiteral("navigatorDock"));
  m_navigatorDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
  m_navigatorDock->setWidget(m_navigatorView);
  m_navigatorDock->setMinimumWidth(220);
  addDockWidget(Qt::LeftDockWidgetArea, m_navigatorDock);

  m_hostBar = new QToolBar(tr("Hosts"), this);
  m_hostBar->setObjectName(QStringLiteral("hostsToolBar"));
  m_hostBar->setMovable(false);
  auto* label = new QLabel(tr("Host:"), m_hostBar);
  label->setContentsMargins(6, 0, 6, 0);
  m_hostBar->addWidget(label);
  m_hostSelector = new QComboBox(m_hostBar);
  m_hostSelector->setObjectName(QStringLiteral("hostSelector"));
  m_hostSelector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_hostSelector->setToolTip(tr("The host whose capture the pages show"));
  m_hostBar->addWidget(m_hostSelector);
  addToolBar(Qt::TopToolBarArea, m_hostBar);
  m_hostBar->hide();
  connect(m_hostSelector, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (!m_syncing) m_session->setCurrentHost(m_hostSelector->itemData(index).toInt());
  });

  connect(m_session, &CaptureSession::hostChanged, this, [this] { showHost(m_session->current()); });
  connect(m_analysis, &AnalysisPages::resultChanged, this, &MainWindow::syncNavigatorWithResult);
}

void MainWindow::fillRunViews() {
  const LoadedRun& run = m_session->run();
  std::vector<NavigatorModel::HostEntry> entries;
  for (const LoadedCapture& host : run.hosts) {
    NavigatorModel::HostEntry entry;
    entry.path = host.path;
    for (const std::string& name : host.capture->hostnames()) entry.hostnames << QString::fromStdString(name);
    entry.modules = moduleRows(*host.capture);
    entry.allocators = allocatorRows(*host.capture);
    entries.push_back(std::move(entry));
  }
  m_syncing = true;
  m_navigator->setHosts(entries);
  m_navigatorView->expandToDepth(run.isMultiHost() ? 0 : 2);
  m_hostSelector->clear();
  for (int i = 0; i < int(run.hosts.size()); ++i)
    m_hostSelector->addItem(hostLabel(run.hosts[std::size_t(i)]), i);
  m_syncing = false;
  m_hostBar->setVisible(run.isMultiHost());
  m_hostsPage->setRun(run);
}

void MainWindow::showHost(const LoadedCapture& loaded) {
  // Everything derived here is linear in modules, allocators or planes, never in events: it stays well under
  // the 100 ms the UI thread may spend, whatever the file size.
  const auto& capture = *loaded.capture;
  auto modules = moduleRows(capture);
  auto allocators = allocatorRows(capture);
  const bool haveModules = !modules.empty();
  const bool haveAllocators = !allocators.empty();
  m_overview->setSummary(summarize(capture), planeRows(capture));
  m_modules->setRows(std::move(modules));
  m_allocators->setRows(std::move(allocators));
  m_analysis->setCapture(loaded.capture);
  showCapturePages(haveModules, haveAllocators);

  const int host = m_session->currentHost();
  m_syncing = true;
  m_hostSelector->setCurrentIndex(m_hostSelector->findData(host));
  m_navigator->setCurrentHost(host);
  if (m_session->run().isMultiHost()) {
    m_navigatorView->expand(m_navigator->hostIndex(host).parent());
    m_navigatorView->expand(m_navigator->hostIndex(host));
  }
  m_syncing = false;
  selectInNavigator(m_navigator->hostIndex(host));

  const QString name = safeName(QFileInfo(loaded.path).fileName());
  setWindowTitle(m_session->run().isMultiHost()
                     ? tr("%1 \u2014 %2 \u2014 oomscope")
                           .arg(name, safeName(QFileInfo(m_session->run().label).fileName()))
                     : tr("%1 \u2014 oomscope").arg(name));
  showLoadedStatus();
  updateActions();
  emit captureChanged(loaded);
}

void MainWindow::selectInNavigator(const QModelIndex& index) {
  if (!index.isValid()) return;
  m_syncing = true;
  m_navigatorView->expand(index.parent());
  m_navigatorView->selectionModel()->setCurrentIndex(
      index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_navigatorView->scrollTo(index);
  m_syncing = false;
}

void MainWindow::onNavigatorCurrentChanged(const QModelIndex& index) {
  if (m_syncing || !index.isValid()) return;
  const int host = NavigatorModel::hostOf(index);
  const auto kind = NavigatorModel::kindOf(index);
  if (host >= 0 && host != m_session->currentHost()) m_session->setCurrentHost(host);
  switch (kind) {
    case NavigatorModel::Kind::Module: {
      const quint64 id = index.siblingAtColumn(0).data(NavigatorModel::ProgramIdRole).toULongLong();
      m_analysis->setModule(QString::number(id));
      // From a page that does not show the analysis, go to the one that says what the module needs.
      QWidget* current = m_tabs->currentWidget();
      bool onAnalysisPage = false;
      for (const auto& [page, title] : m_analysis->pages()) onAnalysisPage |= page == current;
      if (!onAnalysisPage && m_tabs->indexOf(m_analysis->diagnosisPage()) >= 0)
        m_tabs->setCurrentWidget(m_analysis->diagnosisPage());
      break;
    }
    case NavigatorModel::Kind::Allocator:
      showAllocator(index.siblingAtColumn(0).data(NavigatorModel::NameRole).toString());
      break;
    case NavigatorModel::Kind::ModuleGroup:
      if (m_tabs->indexOf(m_modulesPage) >= 0) m_tabs->setCurrentWidget(m_modulesPage);
      break;
    case NavigatorModel::Kind::AllocatorGroup:
      if (m_tabs->indexOf(m_allocatorsPage) >= 0) m_tabs->setCurrentWidget(m_allocatorsPage);
      break;
    case NavigatorModel::Kind::SourceGroup:
    case NavigatorModel::Kind::SourceEntry: {
      const int source = NavigatorModel::sourceOf(index);
      if (source < 0 || source >= int(m_sources.size())) break;
      const auto [navigatorSource, page] = m_sources[std::size_t(source)];
      if (m_tabs->indexOf(page) >= 0) m_tabs->setCurrentWidget(page);
      if (kind == NavigatorModel::Kind::SourceEntry)
        navigatorSource->activate(NavigatorModel::entryOf(index));
      break;
    }
    case NavigatorModel::Kind::File:
    case NavigatorModel::Kind::Host:
      break;
  }
}

void MainWindow::addNavigatorSource(NavigatorSource* source, QWidget* page) {
  const int id = m_navigator->addSource(source->title());
  m_sources.emplace_back(source, page);
  const auto sync = [this, source, page, id] {
    m_syncing = true;
    m_navigator->setSourceEntries(id, source->entries());
    m_syncing = false;
    // The page's own selection shows in the navigator while the page is in front (a background refresh
    // does not take the navigator away from a capture).
    if (source->current() >= 0 && m_tabs->currentWidget() == page)
      selectInNavigator(m_navigator->sourceEntryIndex(id, source->current()));
  };
  connect(source, &NavigatorSource::changed, this, sync);
  connect(m_tabs, &QTabWidget::currentChanged, source, [this, source, page, id] {
    const bool already = NavigatorModel::sourceOf(m_navigatorView->currentIndex()) == id;
    if (m_tabs->currentWidget() == page && source->current() >= 0 && !already)
      selectInNavigator(m_navigator->sourceEntryIndex(id, source->current()));
  });
  sync();
}

void MainWindow::showAllocator(const QString& name) {
  if (m_tabs->indexOf(m_allocatorsPage) < 0) return;
  m_tabs->setCurrentWidget(m_allocatorsPage);
  const auto& rows = m_allocators->rows();
  for (int r = 0; r < int(rows.size()); ++r) {
    if (rows[std::size_t(r)].name != name) continue;
    const QModelIndex shown = m_allocatorsPage->proxy()->mapFromSource(m_allocators->index(r, 0));
    if (shown.isValid()) m_allocatorsPage->view()->selectRow(shown.row());
  }
}

void MainWindow::syncNavigatorWithResult() {
  const auto result = m_analysis->result();
  if (!result || result->request.capture != m_session->current().capture) return;
  const int host = m_session->currentHost();
  const auto& report = *result->report;
  m_syncing = true;
  m_navigator->setModulePlan(host, report.modules, result->defaultModule, result->defaultChoice);
  m_syncing = false;
  if (report.module_index)
    selectInNavigator(m_navigator->moduleIndex(host, report.modules[*report.module_index].program_id));
}

}  // namespace oomscope::ui
