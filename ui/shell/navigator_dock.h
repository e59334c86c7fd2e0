#pragma once
// The Navigator dock: the files, hosts, modules and allocators of the open run, and the lists of pages that
// show one (Live ranks, Simulator runs: NavigatorSource), kept in sync with the pages both ways. Choosing a
// row says what was chosen (the signals below); the window decides which page shows it.

#include <QDockWidget>
#include <optional>
#include <utility>
#include <vector>

#include "core/analysis/report/report.h"

class QTabWidget;

namespace oomscope::ui {

class NavigatorModel;
class NavigatorSource;
class NavigatorView;
struct LoadedRun;

class NavigatorDock : public QDockWidget {
  Q_OBJECT

 public:
  // Shows a source's page in tabs when one of its rows is chosen, and follows the page in front.
  NavigatorDock(QTabWidget* tabs, QWidget* parent);

  NavigatorModel* model() const { return m_model; }
  NavigatorView* view() const { return m_view; }

  // The files and hosts of run (nothing open: an empty run).
  void setRun(const LoadedRun& run);
  // host is the one the pages show: drawn in bold, and expanded in a multi-host run.
  void setCurrentHost(int host, bool multiHost);
  // A host's modules by planned peak, its default module marked (once its report is in).
  void setModulePlan(int host, const std::vector<analysis::ModuleRow>& modules,
                     std::optional<std::size_t> defaultModule, analysis::ModuleChoice choice);
  // Makes index current, expanded and scrolled to, without emitting what it would on a user's click.
  void select(const QModelIndex& index);
  // A page's list, in sync with the page (in tabs) both ways.
  void addSource(NavigatorSource* source, QWidget* page);
  // Before the pages go (the window's destructor): their lists are not synced while they are destroyed.
  void forgetSources();

 signals:
  // The user chose a row of host (switch to it first), then one of these for its kind.
  void hostChosen(int host);
  void moduleChosen(quint64 programId);
  void allocatorChosen(const QString& name);
  void modulesChosen();
  void allocatorsChosen();

 private:
  void onCurrentChanged(const QModelIndex& index);

  QTabWidget* m_tabs = nullptr;
  NavigatorModel* m_model = nullptr;
  NavigatorView* m_view = nullptr;
  std::vector<std::pair<NavigatorSource*, QWidget*>> m_sources;  // by the model's source number
  bool m_syncing = false;                                        // the window is moving the navigator itself
};

}  // namespace oomscope::ui
