#include "ui/live/live_rank_navigator.h"

#include <QItemSelectionModel>

#include "core/util/bytes.h"
#include "ui/live/live_rank_table.h"
#include "ui/live/rank_table_model.h"
#include "ui/session/navigator_source.h"

namespace oomscope::ui {

LiveRankNavigator::LiveRankNavigator(LiveRankTable* table, QWidget* page) : QObject(page), m_table(table) {
  m_source = new NavigatorSource(tr("Live ranks"), page);
  connect(m_source, &NavigatorSource::activated, this, [this](int row) {
    if (row < 0 || row >= m_table->ranks()->rowCount()) return;
    const QModelIndex shown = m_table->shownIndex(row);
    if (!shown.isValid()) return;
    m_table->selectionModel()->setCurrentIndex(
        shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(shown);
    emit chartRequested(m_table->ranks()->row(row).index);
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { update(); });
}

void LiveRankNavigator::update() {
  std::vector<NavigatorSource::Entry> entries;
  const RankTableModel* ranks = m_table->ranks();
  for (int r = 0; r < ranks->rowCount(); ++r) {
    const LiveRankRow& row = ranks->row(r);
    QString detail = row.headroomKnown && row.headroom >= 0
                         ? tr("%1 free").arg(QString::fromStdString(format_bytes(std::int64_t(row.headroom))))
                         : row.status;
    QString tip = tr("%1 \u2014 %2").arg(row.endpoint, row.status);
    if (row.forecastOom) detail = tr("OOM %1 \u00b7 %2").arg(row.forecastCell, detail);
    if (row.forecastKnown) tip += QStringLiteral(" \u00b7 ") + row.forecastSentence;
    entries.push_back({tr("rank %1").arg(row.rank), detail, tip});
  }
  m_source->setEntries(std::move(entries), m_table->modelRow(m_table->selectionModel()->currentIndex()));
}

}  // namespace oomscope::ui
