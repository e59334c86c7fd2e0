#include "ui/shell/capture_tabs.h"

#include <QAbstractItemView>
#include <QChartView>
#include <QTableView>
#include <algorithm>
#include <vector>

#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/buffers_page.h"
#include "ui/analysis/column_widths.h"
#include "ui/analysis/diagnosis_page.h"
#include "ui/analysis/hosts_page.h"
#include "ui/analysis/overview_page.h"
#include "ui/analysis/table_page.h"
#include "ui/models/capture_rows.h"
#include "ui/models/capture_table_models.h"
#include "ui/models/table_filter_proxy.h"
#include "ui/session/capture_session.h"
#include "ui/shell/empty_state_page.h"
#include "ui/shell/exporter.h"

namespace oomscope::ui {

CaptureTabs::CaptureTabs(QWidget* window) : QTabWidget(window) {
  setObjectName(QStringLiteral("pages"));
  setDocumentMode(true);
  setTabBarAutoHide(true);

  // Pages live as hidden children of the window while they are not tabs; a tab reparents them.
  m_empty = new EmptyStatePage(window);
  m_empty->hide();

  m_overview = new OverviewPage(window);
  m_overview->hide();

  m_modules = new ModuleTableModel(window);
  m_modulesPage = new TablePage(
      m_modules,
      {tr("module"), true, tr("Filter by module name or program id (Ctrl+F)"),
       tr("Sizes are summed over each module's buffer assignment (memory space 0) in the HloProtos read from "
          "/host:metadata; \u2014 means the module carries no buffer assignment. Hover a column header for "
          "what it counts."),
       ModuleTableModel::TotalAllocation, Qt::DescendingOrder},
      window);
  m_modulesPage->setObjectName(QStringLiteral("modulesPage"));
  m_modulesPage->view()->setObjectName(QStringLiteral("modulesView"));
  m_modulesPage->hide();

  m_allocators = new AllocatorTableModel(window);
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
      window);
  m_allocatorsPage->setObjectName(QStringLiteral("allocatorsPage"));
  m_allocatorsPage->view()->setObjectName(QStringLiteral("allocatorsView"));
  m_allocatorsPage->hide();

  m_hostsPage = new HostsPage(window);
  m_hostsPage->hide();

  m_analysis = new AnalysisPages(window);
  for (const auto& [page, title] : m_analysis->pages()) page->hide();
  connect(m_analysis, &AnalysisPages::resultChanged, this, &CaptureTabs::syncAnalysisTabs);
  // Double-clicking a module analyses it and shows its diagnosis.
  connect(m_modulesPage->view(), &QAbstractItemView::doubleClicked, this, &CaptureTabs::analyseModuleAt);

  // Column widths the user sets are kept per table, across runs.
  ColumnWidthKeeper::attach(m_modulesPage->view(), QStringLiteral("modules"));
  ColumnWidthKeeper::attach(m_allocatorsPage->view(), QStringLiteral("allocators"));
  ColumnWidthKeeper::attach(m_hostsPage->table()->view(), QStringLiteral("hosts"));
  if (auto* buffers = m_analysis->buffersPage())
    ColumnWidthKeeper::attach(buffers->view(), QStringLiteral("buffers"));
}

void CaptureTabs::showCapture(const LoadedCapture& loaded, bool multiHost) {
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
  showCapturePages(haveModules, haveAllocators, multiHost);
}

void CaptureTabs::clear() {
  m_overview->clear();
  m_modules->setRows({});
  m_allocators->setRows({});
  m_analysis->setCapture(nullptr);
}

bool CaptureTabs::showsModules() const { return indexOf(m_modulesPage) >= 0; }

void CaptureTabs::showCapturePages(bool haveModules, bool haveAllocators, bool multiHost) {
  QWidget* previous = currentWidget();
  std::vector<QWidget*> leading;
  if (multiHost) leading.push_back(m_hostsPage);
  leading.push_back(m_overview);
  if (haveModules) leading.push_back(m_modulesPage);
  if (haveAllocators) leading.push_back(m_allocatorsPage);
  // The same pages as the capture before: they stay where they are. Taking them out and back would make
  // each page in turn the current one, and lay out every one of them (a long diagnosis costs ~50 ms).
  // (The analysis pages sit after the Overview, among them: they are left out of the comparison.)
  std::vector<QWidget*> shown;
  const auto analysis = m_analysis->pages();
  for (int i = 0; i < count(); ++i) {
    if (std::none_of(analysis.begin(), analysis.end(), [&](const auto& p) { return p.first == widget(i); }))
      shown.push_back(widget(i));
  }
  if (shown == leading) {
    syncAnalysisTabs();
    return;
  }
  for (QWidget* page :
       {static_cast<QWidget*>(m_empty), static_cast<QWidget*>(m_hostsPage), static_cast<QWidget*>(m_overview),
        static_cast<QWidget*>(m_modulesPage), static_cast<QWidget*>(m_allocatorsPage)}) {
    if (int i = indexOf(page); i >= 0) removeTab(i);
  }
  removeAnalysisTabs();  // syncAnalysisTabs() puts them back after the Overview
  int at = 0;
  // A multi-host run leads with the comparison: which host ran out first.
  if (multiHost) insertTab(at++, m_hostsPage, tr("Hosts"));
  insertTab(at++, m_overview, tr("Overview"));
  if (haveModules) insertTab(at++, m_modulesPage, tr("Modules"));
  if (haveAllocators) insertTab(at++, m_allocatorsPage, tr("Allocators"));
  syncAnalysisTabs();
  // A reload keeps the page the user was looking at.
  setCurrentWidget(previous && indexOf(previous) >= 0 && previous != m_empty ? previous : m_overview);
}

void CaptureTabs::showEmptyState() {
  for (QWidget* page : {static_cast<QWidget*>(m_hostsPage), static_cast<QWidget*>(m_overview),
                        static_cast<QWidget*>(m_modulesPage), static_cast<QWidget*>(m_allocatorsPage)}) {
    if (int i = indexOf(page); i >= 0) removeTab(i);
  }
  removeAnalysisTabs();
  if (indexOf(m_empty) < 0) insertTab(0, m_empty, tr("Start"));
  setCurrentWidget(m_empty);
}

void CaptureTabs::removeAnalysisTabs() {
  for (const auto& [page, title] : m_analysis->pages()) {
    if (int i = indexOf(page); i >= 0) removeTab(i);
  }
}

void CaptureTabs::syncAnalysisTabs() {
  if (indexOf(m_overview) < 0) return;  // nothing open
  QWidget* current = currentWidget();
  // Design order (docs/architecture.md): Timeline, Plan, Buffers, Diagnosis; Diagnosis leads, after Overview,
  // because it is what a user whose run just died reads first.
  auto pages = m_analysis->pages();
  std::reverse(pages.begin(), pages.end());
  int at = indexOf(m_overview) + 1;
  for (const auto& [page, title] : pages) {
    const int i = indexOf(page);
    // Until the first result arrives every page stays, showing that it is working.
    const bool show = m_analysis->hasContent(page) || !m_analysis->result();
    if (show && i < 0) insertTab(at, page, title);
    if (!show && i >= 0) removeTab(i);
    if (show) ++at;
  }
  if (current && indexOf(current) >= 0) setCurrentWidget(current);
}

void CaptureTabs::analyseModuleAt(const QModelIndex& index) {
  if (!index.isValid()) return;
  const QVariant id = index.siblingAtColumn(ModuleTableModel::ProgramId).data(RecordTableModel::SortRole);
  m_analysis->selectProgram(id.toULongLong());
  if (QWidget* diagnosis = m_analysis->diagnosisPage(); diagnosis && indexOf(diagnosis) >= 0)
    setCurrentWidget(diagnosis);
}

void CaptureTabs::focusFilter() {
  if (indexOf(m_modulesPage) < 0) return;
  setCurrentWidget(m_modulesPage);
  m_modulesPage->focusFilter();
}

void CaptureTabs::showModules() {
  if (indexOf(m_modulesPage) >= 0) setCurrentWidget(m_modulesPage);
}

void CaptureTabs::showAllocators() {
  if (indexOf(m_allocatorsPage) >= 0) setCurrentWidget(m_allocatorsPage);
}

void CaptureTabs::showAllocator(const QString& name) {
  if (indexOf(m_allocatorsPage) < 0) return;
  setCurrentWidget(m_allocatorsPage);
  const auto& rows = m_allocators->rows();
  for (int r = 0; r < int(rows.size()); ++r) {
    if (rows[std::size_t(r)].name != name) continue;
    const QModelIndex shown = m_allocatorsPage->proxy()->mapFromSource(m_allocators->index(r, 0));
    if (shown.isValid()) m_allocatorsPage->view()->selectRow(shown.row());
  }
}

void CaptureTabs::showModule(quint64 programId) {
  m_analysis->setModule(QString::number(programId));
  QWidget* current = currentWidget();
  bool onAnalysisPage = false;
  for (const auto& [page, title] : m_analysis->pages()) onAnalysisPage |= page == current;
  if (!onAnalysisPage && indexOf(m_analysis->diagnosisPage()) >= 0)
    setCurrentWidget(m_analysis->diagnosisPage());
}

void CaptureTabs::attachExports(Exporter* exporter) {
  std::vector<QWidget*> pages = {m_overview, m_modulesPage, m_allocatorsPage, m_hostsPage};
  for (const auto& [page, title] : m_analysis->pages()) pages.push_back(page);
  for (QWidget* page : pages) {
    for (QTableView* view : page->findChildren<QTableView*>()) exporter->attachTable(view, exportName(view));
    for (QChartView* view : page->findChildren<QChartView*>()) exporter->attachChart(view, exportName(view));
  }
}

}  // namespace oomscope::ui
