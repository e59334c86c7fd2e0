#include "ui/models/report_buffer_model.h"

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

using analysis::BufferRole;
using analysis::PlanBuffer;

namespace {

std::vector<RecordTableModel::ColumnSpec> bufferColumns() {
  using K = RecordTableModel::CellKind;
  using O = RecordTableModel::Origin;
  return {
      {QStringLiteral("Size"),
       QStringLiteral("Bytes the buffer holds at the peak (LogicalBufferProto.size; the "
                      "allocation's size for parameters, outputs and constants)."),
       K::Bytes,
       O::Read,
       {}},
      {QStringLiteral("Shape"),
       QStringLiteral("Element type and dimensions of the buffer."),
       K::Text,
       O::Read,
       {}},
      {QStringLiteral("Role"), QStringLiteral("Why the buffer exists."), K::Text, O::Derived,
       QStringLiteral(
           "from the JAX name stack in op_name and the buffer's lifetime: jvp( and still live when the "
           "backward starts = forward-kept, jvp( freed before it = forward-transient, transpose( = backward, "
           "s8 custom-call output = workspace; parameters/outputs/constants by allocation")},
      {QStringLiteral("Instruction"),
       QStringLiteral("The HLO instruction that defines the buffer."),
       K::Text,
       O::Read,
       {}},
      {QStringLiteral("Op name"),
       QStringLiteral("OpMetadata.op_name of that instruction: the JAX name stack."),
       K::Text,
       O::Read,
       {}},
      {QStringLiteral("Source"),
       QStringLiteral("Python file and line that created the buffer."),
       K::Text,
       O::Read,
       {}},
  };
}

}  // namespace

BufferTableModel::BufferTableModel(QObject* parent) : RecordTableModel(bufferColumns(), parent) {}

void BufferTableModel::setReport(std::shared_ptr<const analysis::HostReport> report) {
  beginResetModel();
  m_report = std::move(report);
  m_buffers = m_report && m_report->plan ? &m_report->plan->live_at_peak : nullptr;
  m_total = 0;
  if (m_buffers)
    for (const PlanBuffer& b : *m_buffers) m_total += b.size_bytes;
  endResetModel();
}

QVariant BufferTableModel::rawValue(int row, int column) const {
  const PlanBuffer& b = buffer(row);
  switch (column) {
    case Size:
      return qint64(b.size_bytes);
    case Shape:
      return safeText(b.shape);
    case Role:
      return roleText(b.role);
    case Instruction:
      return safeText(b.instruction);
    case OpName:
      if (!b.op_name.empty()) return safeText(b.op_name);
      if (!b.role_via_op_name.empty()) return safeText(b.role_via_op_name);
      return {};
    case Source: {
      const std::string s = b.source.to_string();
      return s.empty() ? QVariant() : QVariant(safeText(s));
    }
    default:
      return {};
  }
}

QString BufferTableModel::unknownReason(int row, int column) const {
  if (column == Source) return QStringLiteral("XLA recorded no Python source line for this buffer.");
  if (column == OpName && buffer(row).indefinite)
    return QStringLiteral("Parameters, outputs and constants have no JAX name stack.");
  return QStringLiteral("The plan does not name it.");
}

QVariant BufferTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const PlanBuffer& b = buffer(index.row());
  if (role == BufferRoleRole) return int(b.role);
  if (role == SizeBytesRole) return qint64(b.size_bytes);
  if (index.column() == Role) {
    if (role == Qt::DecorationRole) return roleColor(b.role);
    if (role == Qt::ToolTipRole) {
      QString tip = QStringLiteral("%1: %2").arg(roleText(b.role), roleMeaning(b.role));
      if (!b.role_via_instruction.empty())
        tip += QStringLiteral("\nRole taken from the alias %1 (%2).")
                   .arg(safeText(b.role_via_instruction), safeText(b.role_via_op_name));
      return plainToolTip(tip);
    }
  }
  if (index.column() == OpName && role == Qt::ToolTipRole && b.op_name.empty() && !b.role_via_op_name.empty())
    return plainToolTip(QStringLiteral("%1\n(op_name of the alias %2: the defining instruction has none)")
                            .arg(safeText(b.role_via_op_name), safeText(b.role_via_instruction)));
  if (index.column() == Source && role == Qt::ToolTipRole && b.source.known() && !b.source.function.empty())
    return plainToolTip(
        QStringLiteral("%1\nin %2").arg(safeText(b.source.to_string()), safeText(b.source.function)));
  return RecordTableModel::data(index, role);
}

BufferFilterProxy::BufferFilterProxy(QObject* parent) : TableFilterProxy(parent) {}

void BufferFilterProxy::setRoleFilter(std::optional<BufferRole> role) {
  if (role == m_role) return;
  m_role = role;
  invalidateRowsFilter();
}

qint64 BufferFilterProxy::shownBytes() const {
  qint64 total = 0;
  for (int r = 0; r < rowCount(); ++r)
    total += index(r, BufferTableModel::Size).data(BufferTableModel::SizeBytesRole).toLongLong();
  return total;
}

bool BufferFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (m_role) {
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    if (idx.data(BufferTableModel::BufferRoleRole).toInt() != int(*m_role)) return false;
  }
  return TableFilterProxy::filterAcceptsRow(sourceRow, sourceParent);
}

}  // namespace oomscope::ui
