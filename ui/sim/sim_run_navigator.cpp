#include "ui/sim/sim_run_navigator.h"

#include <QLocale>
#include <QWidget>

#include "ui/session/navigator_source.h"

namespace oomscope::ui {

SimRunNavigator::SimRunNavigator(QWidget* page) : QObject(page) {
  m_source = new NavigatorSource(tr("Simulator runs"), page);
  connect(m_source, &NavigatorSource::activated, this, [this](int entry) {
    // Entries list the slots that hold a run, A first.
    int slot = -1;
    for (int s = 0, seen = 0; s < 2; ++s)
      if (m_has[std::size_t(s)] && seen++ == entry) slot = s;
    if (slot >= 0) emit runPicked(slot);
  });
}

void SimRunNavigator::setRuns(const std::array<RunPtr, 2>& runs, int currentSlot) {
  std::vector<NavigatorSource::Entry> entries;
  int current = -1;
  for (int s = 0; s < 2; ++s) {
    const RunPtr& run = runs[std::size_t(s)];
    m_has[std::size_t(s)] = run != nullptr;
    if (!run) continue;
    if (s == currentSlot) current = int(entries.size());
    const qint64 attempts = run->stepTotals.empty() ? 0 : qint64(run->stepTotals.back().attempts);
    entries.push_back({tr("%1: %2").arg(s == 0 ? QStringLiteral("A") : QStringLiteral("B"), run->title),
                       attempts == 1 ? tr("1 attempt") : tr("%1 attempts").arg(QLocale().toString(attempts)),
                       run->source});
  }
  m_source->setEntries(std::move(entries), current);
}

}  // namespace oomscope::ui
