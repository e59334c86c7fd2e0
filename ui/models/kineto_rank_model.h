#pragma once
// The ranks of one job of per-rank Kineto traces (core/snapshot/kineto_ranks.h): one row per rank with its
// device, the peaks of its [memory] events, the capacity from deviceProperties, its [OutOfMemory] events,
// its ProfilerStep markers and its file; the verdict rank is marked.

#include <QString>
#include <optional>
#include <vector>

#include "core/snapshot/kineto_ranks.h"
#include "ui/models/record_table_model.h"

namespace oomscope::ui {

struct KinetoRankRow {
  qint64 rank = 0;
  QString device;  // "CUDA 1"
  qint64 peakAllocated = 0;
  bool peakAllocatedRead = true;  // false: the running sum of Bytes (old event schema)
  std::optional<qint64> peakReserved, capacity;
  QString capacityFrom;  // "given (--capacity)", "deviceProperties.totalGlobalMem", empty when unknown
  QString oom;           // "20.0 GiB request, at 0.115 s", empty when none
  QString steps;         // "2-3", empty when none
  QString file, path;
  bool verdict = false;
};

// Rows by rank; OOM times since the earliest [memory] event of any rank.
std::vector<KinetoRankRow> kinetoRankRows(const snapshot::KinetoRankJob& j);

class KinetoRankModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { Rank, Device, PeakAllocated, PeakReserved, Capacity, Oom, Steps, File, ColumnCount };

  explicit KinetoRankModel(QObject* parent = nullptr);
  void setRows(std::vector<KinetoRankRow> rows);
  const std::vector<KinetoRankRow>& rows() const { return m_rows; }

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  int recordCount() const override { return int(m_rows.size()); }
  QVariant rawValue(int row, int column) const override;
  QString unknownReason(int row, int column) const override;

 private:
  std::vector<KinetoRankRow> m_rows;
};

}  // namespace oomscope::ui
