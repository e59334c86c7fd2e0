#pragma once
// The per-host comparison of a multi-host run: one row per host (capture file), with its pool's peak in
// use, capacity, executions, AllocatorRetry waits, the earliest sign of running out and the diagnosis
// verdict; the host that ran out first is marked (core/analysis/report/host_comparison.h says how it is
// decided).

#include <QString>
#include <optional>
#include <vector>

#include "core/analysis/report/host_comparison.h"
#include "core/analysis/report/report.h"
#include "ui/models/record_table_model.h"

namespace oomscope::ui {

struct HostRow {
  QString host;
  QString file;  // file name (shown with the path in the host's tooltip)
  QString path;
  QString pool;
  std::optional<qint64> peak;
  std::optional<qint64> capacity;
  // "87 %", "0.3 %", "< 0.1 %" (derived; a non-zero share never reads "0 %"), empty when unknown.
  QString peakPercent;
  std::optional<double> peakFraction;  // peak in use / capacity, for sorting
  qint64 executions = 0;
  qint64 retries = 0;
  // "AllocatorRetry wait at 2026-02-20 13:53:59.239 UTC (+0.025 s)" on one clock, else "... at +1.234 s"
  // by the host's own clock; empty when none.
  QString firstTrouble;
  QString verdict;           // reportVerdict of the host's default report
  bool ranOutFirst = false;  // the comparison's first_out
};

// Rows in the comparison's host order; times are shown relative to the earliest host's trouble.
std::vector<HostRow> hostRows(const analysis::HostComparison& comparison,
                              const std::vector<analysis::HostReport>& reports);

class HostTableModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { Host, Peak, Capacity, PeakPercent, Executions, Retries, FirstTrouble, Verdict, ColumnCount };

  explicit HostTableModel(QObject* parent = nullptr);
  void setRows(std::vector<HostRow> rows);
  const std::vector<HostRow>& rows() const { return m_rows; }

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 protected:
  int recordCount() const override { return int(m_rows.size()); }
  QVariant rawValue(int row, int column) const override;
  QString unknownReason(int row, int column) const override;

 private:
  std::vector<HostRow> m_rows;
};

}  // namespace oomscope::ui
