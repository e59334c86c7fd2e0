#pragma once
// The ranks of one job of per-rank PyTorch snapshots (core/snapshot/rank_comparison.h): one row per rank
// with its device, peaks, capacity, OOM and file; the verdict rank is marked.
// (snapshot_rank_imbalance_model.h lists the imbalance and what the verdict rank holds beyond the median
// rank.)

#include <QString>
#include <optional>
#include <vector>

#include "core/snapshot/rank_comparison.h"
#include "ui/models/record_table_model.h"

namespace oomscope::ui {

struct SnapshotRankRow {
  qint64 rank = 0;
  qint64 device = 0;
  qint64 peakAllocated = 0, peakReserved = 0;
  std::optional<qint64> capacity;
  QString capacityFrom;  // "given (--capacity)", "reserved at the OOM + device_free", empty when unknown
  QString oom;           // "2.00 GiB request, 64.0 MiB free, at 0.980 s", empty when none
  QString largest;       // the largest category at the peak with its bytes
  QString file, path;
  bool verdict = false;  // the verdict's rank
};

// Rows by rank; OOM times since the earliest trace entry of any rank.
std::vector<SnapshotRankRow> snapshotRankRows(const snapshot::RankComparison& c);

class SnapshotRankModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { Rank, Device, PeakAllocated, PeakReserved, Capacity, Oom, Largest, File, ColumnCount };

  explicit SnapshotRankModel(QObject* parent = nullptr);
  void setRows(std::vector<SnapshotRankRow> rows);
  const std::vector<SnapshotRankRow>& rows() const { return m_rows; }

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  int recordCount() const override { return int(m_rows.size()); }
  QVariant rawValue(int row, int column) const override;
  QString unknownReason(int row, int column) const override;

 private:
  std::vector<SnapshotRankRow> m_rows;
};

}  // namespace oomscope::ui
