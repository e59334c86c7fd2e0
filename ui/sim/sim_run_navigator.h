#pragma once
// The Simulator page's runs (A, and B when comparing) in the main window's navigator: picking one there
// asks the page to show it (runPicked); the page reports which runs it has and which attempt tab is
// current with setRuns(). The NavigatorSource it feeds is a direct child of the page, where the main
// window looks for it.

#include <QObject>
#include <array>

#include "ui/sim/run_data.h"

class QWidget;

namespace oomscope::ui {

class NavigatorSource;

class SimRunNavigator : public QObject {
  Q_OBJECT

 public:
  explicit SimRunNavigator(QWidget* page);

  NavigatorSource* source() const { return m_source; }
  // The runs of slots A and B (null: none) and the slot whose attempt list is shown.
  void setRuns(const std::array<RunPtr, 2>& runs, int currentSlot);

 signals:
  void runPicked(int slot);

 private:
  NavigatorSource* m_source = nullptr;
  std::array<bool, 2> m_has{};  // which slots hold a run: the entries list those, A first
};

}  // namespace oomscope::ui
