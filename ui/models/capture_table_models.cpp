#include "ui/models/capture_table_models.h"

namespace oomscope::ui {

namespace {

using Kind = RecordTableModel::CellKind;
using Origin = RecordTableModel::Origin;
using Spec = RecordTableModel::ColumnSpec;

const QString kFromPlan = QStringLiteral(
    "summed over the module's buffer assignment (memory space 0) in the HloProto read from /host:metadata.");

std::vector<Spec> moduleColumns() {
  return {
      {QStringLiteral("Module"),
       QStringLiteral("Name of the compiled XLA module (HloModuleProto.name)."),
       Kind::Text,
       Origin::Read,
       {}},
      {QStringLiteral("Program id"),
       QStringLiteral("Program id of the module; runtime events refer to the module by it."),
       Kind::Id,
       Origin::Read,
       {}},
      {QStringLiteral("Parameters"), QStringLiteral("Bytes of the entry parameters (inputs) of the module."),
       Kind::Bytes, Origin::Derived, kFromPlan},
      {QStringLiteral("Donated"),
       QStringLiteral("Bytes of parameters aliased with an output: donated buffers reused for results."),
       Kind::Bytes, Origin::Derived, kFromPlan},
      {QStringLiteral("Outputs"), QStringLiteral("Bytes of the outputs that are not parameters."),
       Kind::Bytes, Origin::Derived, kFromPlan},
      {QStringLiteral("Temp"),
       QStringLiteral("Bytes of temporaries: buffers that are neither parameters, outputs, constants nor "
                      "thread-local."),
       Kind::Bytes, Origin::Derived, kFromPlan},
      {QStringLiteral("Total allocation"),
       QStringLiteral("Bytes of all allocations of the buffer assignment."), Kind::Bytes, Origin::Derived,
       kFromPlan},
  };
}

const QString kFromEvents =
    QStringLiteral("from the MemoryAllocation/MemoryDeallocation events of /host:CPU.");

std::vector<Spec> allocatorColumns() {
  return {
      {QStringLiteral("Allocator"),
       QStringLiteral("Name of the allocator (allocator_name stat), e.g. GPU_0_bfc."),
       Kind::Text,
       Origin::Read,
       {}},
      {QStringLiteral("Allocations"), QStringLiteral("Number of allocations recorded during the capture."),
       Kind::Count, Origin::Derived, QStringLiteral("counted ") + kFromEvents},
      {QStringLiteral("Deallocations"),
       QStringLiteral("Number of deallocations recorded during the capture."), Kind::Count, Origin::Derived,
       QStringLiteral("counted ") + kFromEvents},
      {QStringLiteral("Max in use"), QStringLiteral("Most bytes in use at any event of the capture."),
       Kind::Bytes, Origin::Derived, QStringLiteral("maximum of the bytes_allocated stat ") + kFromEvents},
      {QStringLiteral("Lifetime peak"),
       QStringLiteral(
           "Peak bytes in use over the allocator's whole life, as the allocator itself reports it; "
           "it may predate the capture."),
       Kind::Bytes,
       Origin::Read,
       {}},
      {QStringLiteral("Capacity"), QStringLiteral("Size of the allocator's pool."), Kind::Bytes,
       Origin::Derived,
       QStringLiteral("bytes_allocated + bytes_available at the event with the most bytes in use.")},
  };
}

std::vector<Spec> planeColumns() {
  return {
      {QStringLiteral("Plane"),
       QStringLiteral("Name of the XPlane (a host, a device or metadata)."),
       Kind::Text,
       Origin::Read,
       {}},
      {QStringLiteral("Lines"), QStringLiteral("Number of lines (threads, streams) in the plane."),
       Kind::Count, Origin::Derived, QStringLiteral("counted from the file.")},
      {QStringLiteral("Events"), QStringLiteral("Number of events on all lines of the plane."), Kind::Count,
       Origin::Derived, QStringLiteral("counted from the file.")},
  };
}

}  // namespace

ModuleTableModel::ModuleTableModel(QObject* parent) : RecordTableModel(moduleColumns(), parent) {}

void ModuleTableModel::setRows(std::vector<ModuleRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant ModuleTableModel::rawValue(int row, int column) const {
  const auto& r = m_rows.at(std::size_t(row));
  switch (column) {
    case Name:
      return r.name;
    case ProgramId:
      return QVariant::fromValue<quint64>(r.programId);
    default:
      break;
  }
  if (!r.hasPlan) return {};
  switch (column) {
    case Parameters:
      return QVariant::fromValue<qint64>(r.parameters);
    case Donated:
      return QVariant::fromValue<qint64>(r.donated);
    case Outputs:
      return QVariant::fromValue<qint64>(r.outputs);
    case Temp:
      return QVariant::fromValue<qint64>(r.temp);
    case TotalAllocation:
      return QVariant::fromValue<qint64>(r.totalAllocation);
    default:
      return {};
  }
}

QString ModuleTableModel::unknownReason(int, int) const {
  return QStringLiteral(
      "The HloProto of this module carries no buffer assignment, so its sizes are unknown.");
}

AllocatorTableModel::AllocatorTableModel(QObject* parent) : RecordTableModel(allocatorColumns(), parent) {}

void AllocatorTableModel::setRows(std::vector<AllocatorRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant AllocatorTableModel::rawValue(int row, int column) const {
  const auto& r = m_rows.at(std::size_t(row));
  switch (column) {
    case Name:
      return r.name;
    case Allocations:
      return QVariant::fromValue<qint64>(r.allocations);
    case Deallocations:
      return QVariant::fromValue<qint64>(r.deallocations);
    case MaxInUse:
      return QVariant::fromValue<qint64>(r.maxInUse);
    case LifetimePeak:
      return QVariant::fromValue<qint64>(r.lifetimePeak);
    // A pool whose size was never reported (no bytes_available stat) reads as 0: unknown, not empty.
    case Capacity:
      return r.capacity > 0 ? QVariant::fromValue<qint64>(r.capacity) : QVariant();
    default:
      return {};
  }
}

QString AllocatorTableModel::unknownReason(int, int) const {
  return QStringLiteral("The allocator events carry no bytes_available stat, so the pool size is unknown.");
}

PlaneTableModel::PlaneTableModel(QObject* parent) : RecordTableModel(planeColumns(), parent) {}

void PlaneTableModel::setRows(std::vector<PlaneRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant PlaneTableModel::rawValue(int row, int column) const {
  const auto& r = m_rows.at(std::size_t(row));
  switch (column) {
    case Name:
      return r.name;
    case Lines:
      return QVariant::fromValue<qint64>(r.lines);
    case Events:
      return QVariant::fromValue<qint64>(r.events);
    default:
      return {};
  }
}

}  // namespace oomscope::ui
