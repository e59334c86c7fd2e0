#pragma once
// The main window's pages as tabs. With nothing open: the start page (EmptyStatePage). With a capture open:
// Hosts (a multi-host run, first: which host ran out first), Overview, Modules and Allocators (only when
// they have rows), then the analysis pages (Diagnosis, Buffers, Plan, Timeline: ui/analysis/
// analysis_pages.h), which stay while the first result is computed and then only those with something to
// show. Pages added with addTab (the simulator, Live) follow and stay whatever is opened or closed. A page
// that is not a tab is a hidden child of the window.

#include <QTabWidget>

namespace oomscope::ui {

class AllocatorTableModel;
class AnalysisPages;
class EmptyStatePage;
class Exporter;
class HostsPage;
class ModuleTableModel;
class OverviewPage;
class TablePage;
struct LoadedCapture;

class CaptureTabs : public QTabWidget {
  Q_OBJECT

 public:
  // window holds the pages while they are not tabs.
  explicit CaptureTabs(QWidget* window);

  EmptyStatePage* emptyPage() const { return m_empty; }
  OverviewPage* overviewPage() const { return m_overview; }
  TablePage* modulesPage() const { return m_modulesPage; }
  TablePage* allocatorsPage() const { return m_allocatorsPage; }
  AllocatorTableModel* allocatorsModel() const { return m_allocators; }
  HostsPage* hostsPage() const { return m_hostsPage; }
  AnalysisPages* analysis() const { return m_analysis; }

  // Fills the pages for one host of the open run (after a load or a host switch) and shows those with rows;
  // the page in front stays in front when it still is a tab.
  void showCapture(const LoadedCapture& loaded, bool multiHost);
  // Empties the pages (nothing open); showEmptyState() then shows the start page alone.
  void clear();
  void showEmptyState();
  // Whether Modules is a tab.
  bool showsModules() const;

  // Modules in front with its filter focused (Ctrl+F).
  void focusFilter();
  // Modules or Allocators in front, when they are tabs.
  void showModules();
  void showAllocators();
  // Allocators in front with the allocator of that name selected.
  void showAllocator(const QString& name);
  // The module's analysis; from a page that does not show the analysis, the one that says what the module
  // needs (Diagnosis).
  void showModule(quint64 programId);
  // Context menus and Ctrl+C on every table, export menus on every chart of the capture pages.
  void attachExports(Exporter* exporter);

 private:
  void showCapturePages(bool haveModules, bool haveAllocators, bool multiHost);
  // Puts the analysis tabs after Overview; once a result is in, only those with something to show.
  void syncAnalysisTabs();
  void removeAnalysisTabs();
  void analyseModuleAt(const QModelIndex& index);

  EmptyStatePage* m_empty = nullptr;
  OverviewPage* m_overview = nullptr;
  ModuleTableModel* m_modules = nullptr;
  AllocatorTableModel* m_allocators = nullptr;
  TablePage* m_modulesPage = nullptr;
  TablePage* m_allocatorsPage = nullptr;
  HostsPage* m_hostsPage = nullptr;
  AnalysisPages* m_analysis = nullptr;
};

}  // namespace oomscope::ui
