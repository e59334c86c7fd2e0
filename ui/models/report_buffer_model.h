#pragma once
// The buffers live at the analysed plan's peak (PlanAnalysis::live_at_peak), one row each, for the Buffers
// page: size, shape, role, defining instruction, op_name and Python source line. Built on RecordTableModel,
// so display text, raw sort values, exact-byte tooltips and read/derived header tooltips follow the other
// tables; BufferRoleRole gives the row's role for the role filter, and the Role column carries its colour.

#include <QColor>
#include <memory>
#include <optional>

#include "core/analysis/report/report.h"
#include "ui/models/record_table_model.h"
#include "ui/models/table_filter_proxy.h"

namespace oomscope::ui {

class BufferTableModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { Size, Shape, Role, Instruction, OpName, Source, ColumnCount };
  enum ExtraRole { BufferRoleRole = Qt::UserRole + 10, SizeBytesRole };

  explicit BufferTableModel(QObject* parent = nullptr);

  // Shows the report's live-at-peak buffers (none when it has no plan); keeps the report alive.
  void setReport(std::shared_ptr<const analysis::HostReport> report);
  void clear() { setReport(nullptr); }
  const analysis::PlanBuffer& buffer(int row) const { return (*m_buffers)[std::size_t(row)]; }
  // Sum of the sizes of every row (the plan's peak, when the plan has a heap trace).
  qint64 totalBytes() const { return m_total; }

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  int recordCount() const override { return m_buffers ? int(m_buffers->size()) : 0; }
  QVariant rawValue(int row, int column) const override;
  QString unknownReason(int row, int column) const override;

 private:
  std::shared_ptr<const analysis::HostReport> m_report;
  const std::vector<analysis::PlanBuffer>* m_buffers = nullptr;
  qint64 m_total = 0;
};

// TableFilterProxy (literal, case-insensitive text over the text columns, raw-value sorting) plus a role
// filter, and the total of the rows that pass.
class BufferFilterProxy : public TableFilterProxy {
  Q_OBJECT

 public:
  explicit BufferFilterProxy(QObject* parent = nullptr);

  // nullopt shows every role.
  void setRoleFilter(std::optional<analysis::BufferRole> role);
  std::optional<analysis::BufferRole> roleFilter() const { return m_role; }
  // Bytes of the rows the proxy shows now.
  qint64 shownBytes() const;

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  std::optional<analysis::BufferRole> m_role;
};

}  // namespace oomscope::ui
