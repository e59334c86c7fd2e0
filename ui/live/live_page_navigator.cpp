// LivePage: its ranks listed in the main window's navigator, in session order, each with its headroom (or
// its state while that is unknown), led by its OOM forecast when one is forecast (the full sentence in the
// tooltip). Picking a rank there selects its row in the rank table and scrolls its chart into view;
// selecting a row here selects the rank there.
#include <QItemSelectionModel>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTableView>

#include "core/util/bytes.h"
#include "ui/live/live_chart.h"
#include "ui/live/live_page.h"
#include "ui/live/rank_table_model.h"
#include "ui/session/navigator_source.h"

namespace oomscope::ui {

void LivePage::createNavigatorSource() {
  m_navigator = new NavigatorSource(tr("Live ranks"), this);
  connect(m_navigator, &NavigatorSource::activated, this, [this](int row) {
    if (row < 0 || row >= m_ranks->rowCount()) return;
    const QModelIndex shown = m_sorted->mapFromSource(m_ranks->index(row, 0));
    if (!shown.isValid()) return;
    m_table->selectionModel()->setCurrentIndex(
        shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(shown);
    const int chart = m_ranks->row(row).index;
    if (chart >= 0 && chart < int(m_charts.size()))
      m_scroll->ensureWidgetVisible(m_charts[std::size_t(chart)]);
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this] { updateNavigatorSource(); });
}

void LivePage::updateNavigatorSource() {
  if (!m_navigator) return;
  std::vector<NavigatorSource::Entry> entries;
  for (int r = 0; r < m_ranks->rowCount(); ++r) {
    const LiveRankRow& row = m_ranks->row(r);
    QString detail = row.headroomKnown && row.headroom >= 0
                         ? tr("%1 free").arg(QString::fromStdString(format_bytes(std::int64_t(row.headroom))))
                         : row.status;
    QString tip = tr("%1 \u2014 %2").arg(row.endpoint, row.status);
    if (row.forecastOom) detail = tr("OOM %1 \u00b7 %2").arg(row.forecastCell, detail);
    if (row.forecastKnown) tip += QStringLiteral(" \u00b7 ") + row.forecastSentence;
    entries.push_back({tr("rank %1").arg(row.rank), detail, tip});
  }
  const QModelIndex current = m_table->selectionModel()->currentIndex();
  const int row = current.isValid() ? m_sorted->mapToSource(current).row() : -1;
  m_navigator->setEntries(std::move(entries), row);
}

}  // namespace oomscope::ui
