#include "ui/shell/allocators_range.h"

#include <QLocale>

#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/range_banner.h"
#include "ui/analysis/table_page.h"
#include "ui/charts/timeline_chart.h"
#include "ui/models/capture_rows.h"
#include "ui/models/capture_table_models.h"
#include "ui/session/capture_session.h"

namespace oomscope::ui {

AllocatorsRange::AllocatorsRange(TablePage* page, AllocatorTableModel* model, AnalysisPages* analysis,
                                 const CaptureSession* session, QObject* parent)
    : QObject(parent), m_model(model), m_analysis(analysis), m_session(session) {
  m_banner = new RangeBanner(page);
  m_banner->setObjectName(QStringLiteral("allocatorsRange"));
  page->addTopWidget(m_banner);
  connect(m_banner, &RangeBanner::clearRequested, m_analysis, &AnalysisPages::clearRange);
  connect(m_analysis, &AnalysisPages::resultChanged, this, &AllocatorsRange::syncWithRange);
}

void AllocatorsRange::syncWithRange() {
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
    m_model->setRows(std::move(rows));
    m_banner->setText(text);
    return;
  }
  // No time range (none, or a program-order range): the whole capture's allocators.
  if (!m_banner->text().isEmpty())  // it showed a range: back to the capture's rows
    m_model->setRows(allocatorRows(*current));
  if (request && request->planRange)
    m_banner->setText(
        tr("Selection: program positions %1 .. %2 of the plan. A program-order range selects no time, so "
           "this table still covers the allocator events of the whole capture.")
            .arg(request->planRange->first)
            .arg(request->planRange->second));
  else
    m_banner->setText({});
}

}  // namespace oomscope::ui
