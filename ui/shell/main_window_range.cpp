// MainWindow: the Allocators table under a range selection. A time range re-scopes it to the allocator
// events inside the range (the analysis' own figures, computed on its worker); a program-order range selects
// no time, so the table keeps the whole capture and says why. Clearing the range brings the capture's rows
// back.
#include <QLocale>

#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/range_banner.h"
#include "ui/analysis/table_page.h"
#include "ui/charts/timeline_chart.h"
#include "ui/models/capture_rows.h"
#include "ui/models/capture_table_models.h"
#include "ui/shell/main_window.h"

namespace oomscope::ui {

void MainWindow::createAllocatorsRange() {
  m_allocatorsRange = new RangeBanner(m_allocatorsPage);
  m_allocatorsRange->setObjectName(QStringLiteral("allocatorsRange"));
  m_allocatorsPage->addTopWidget(m_allocatorsRange);
  connect(m_allocatorsRange, &RangeBanner::clearRequested, m_analysis, &AnalysisPages::clearRange);
  connect(m_analysis, &AnalysisPages::resultChanged, this, &MainWindow::syncAllocatorsWithRange);
}

void MainWindow::syncAllocatorsWithRange() {
  const auto result = m_analysis->result();
  const auto& current = m_session->current().capture;
  if (!current || (result && result->request.capture != current)) return;
  const auto* request = result ? &result->request : nullptr;
  if (request && request->timeWindow) {
    const auto& allocators = result->report->runtime.allocators;
    auto rows = allocatorRows(allocators);
    const auto silent = qint64(allocators.size() - rows.size());
    const auto [from, to] = *request->timeWindow;
    QString text = tr("Selection: %1 .. %2 of the capture (%3). Counts, Max in use, Lifetime peak and "
                      "Capacity are read from the allocator events inside it.")
                       .arg(secondsText(from), secondsText(to), durationText(to - from));
    if (silent > 0)
      text += QLatin1Char(' ') +
              (silent == 1
                   ? tr("1 allocator with no event in it is not listed.")
                   : tr("%1 allocators with no event in it are not listed.").arg(QLocale().toString(silent)));
    m_allocators->setRows(std::move(rows));
    m_allocatorsRange->setText(text);
    return;
  }
  // No time range (none, or a program-order range): the whole capture's allocators.
  if (!m_allocatorsRange->text().isEmpty())  // it showed a range: back to the capture's rows
    m_allocators->setRows(allocatorRows(*current));
  if (request && request->planRange)
    m_allocatorsRange->setText(
        tr("Selection: program positions %1 .. %2 of the plan. A program-order range selects no time, so "
           "this table still covers the allocator events of the whole capture.")
            .arg(request->planRange->first)
            .arg(request->planRange->second));
  else
    m_allocatorsRange->setText({});
}

}  // namespace oomscope::ui
