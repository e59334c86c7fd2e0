#pragma once
// The figures of a job's ranks beside the table (core/snapshot/rank_comparison.h): the imbalance (max /
// median over the ranks, per category) and what the verdict rank holds beyond the median rank.

#include <QString>
#include <vector>

#include "core/snapshot/kineto_ranks.h"
#include "core/snapshot/rank_comparison.h"
#include "ui/models/record_table_model.h"

namespace oomscope::ui {

// One row per figure of the comparison: the imbalance lines (peak allocated, peak reserved, each category)
// and the verdict rank's differences from the median (categories, then allocation sites).
struct RankImbalanceRow {
  QString what;       // "imbalance", "holds beyond the median (category)", "... (site)"
  QString name;       // "parameters", "peak allocated", a site
  qint64 bytes = 0;   // max over the ranks, or the verdict rank's bytes
  qint64 median = 0;  // rounded to whole bytes
  QString figure;     // "1.33x", "+1.00 GiB"
};
std::vector<RankImbalanceRow> rankImbalanceRows(const snapshot::RankComparison& c);
// Per-rank Kineto traces: the imbalance of the two peaks only (the format has no categories or sites).
std::vector<RankImbalanceRow> rankImbalanceRows(const snapshot::KinetoRankJob& j);

class RankImbalanceModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { What, Name, Bytes, Median, Figure, ColumnCount };

  explicit RankImbalanceModel(QObject* parent = nullptr);
  void setRows(std::vector<RankImbalanceRow> rows);
  const std::vector<RankImbalanceRow>& rows() const { return m_rows; }

 protected:
  int recordCount() const override { return int(m_rows.size()); }
  QVariant rawValue(int row, int column) const override;

 private:
  std::vector<RankImbalanceRow> m_rows;
};

}  // namespace oomscope::ui
