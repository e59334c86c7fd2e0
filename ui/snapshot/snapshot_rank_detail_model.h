#pragma once
// What one rank of a job holds at its own peak (core/snapshot/rank_comparison.h, RankFigures): by category
// (the user's rules first when given, then guessed from stacks) or by allocation site (the innermost user
// frame). The same figures as the CLI's per-rank lines of `report DIR`; the Ranks window's detail pane
// (rank_detail_pane.h) shows one model of each part.

#include <QString>
#include <vector>

#include "core/snapshot/rank_comparison.h"
#include "ui/models/record_table_model.h"

namespace oomscope::ui {

struct SnapshotRankDetailRow {
  QString name;       // a category's label, or an allocation site
  qint64 bytes = 0;   // live at the rank's peak
  qint64 count = -1;  // allocations (categories); -1 not counted (sites)
  QString rule;       // the rule that decided the category's largest allocation; empty for sites
};

class SnapshotRankDetailModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum class Part { Categories, Sites };
  // Categories: Name, Bytes, Count, Rule. Sites: Name, Bytes.
  enum Column { Name, Bytes, Count, Rule };

  explicit SnapshotRankDetailModel(Part part, QObject* parent = nullptr);
  Part part() const { return m_part; }

  // Every category (largest first, as the comparison orders them) or every site live at the peak (largest
  // first, ties by name).
  static std::vector<SnapshotRankDetailRow> rowsOf(const snapshot::RankFigures& f, Part part);
  void setRank(const snapshot::RankFigures& f) { setRows(rowsOf(f, m_part)); }
  void setRows(std::vector<SnapshotRankDetailRow> rows);
  const std::vector<SnapshotRankDetailRow>& rows() const { return m_rows; }

 protected:
  int recordCount() const override { return int(m_rows.size()); }
  QVariant rawValue(int row, int column) const override;

 private:
  Part m_part;
  std::vector<SnapshotRankDetailRow> m_rows;
};

}  // namespace oomscope::ui
