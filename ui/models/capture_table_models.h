#pragma once
// The tables of a capture: its modules (the memory plans), its allocators (the runtime) and its planes.
// Each is filled with a full reset from rows built by capture_rows.h (or by a test).

#include <vector>

#include "ui/models/capture_rows.h"
#include "ui/models/record_table_model.h"

namespace oomscope::ui {

class ModuleTableModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { Name, ProgramId, Parameters, Donated, Outputs, Temp, TotalAllocation, ColumnCount };

  explicit ModuleTableModel(QObject* parent = nullptr);
  void setRows(std::vector<ModuleRow> rows);
  const std::vector<ModuleRow>& rows() const { return m_rows; }

 protected:
  int recordCount() const override { return int(m_rows.size()); }
  QVariant rawValue(int row, int column) const override;
  QString unknownReason(int row, int column) const override;

 private:
  std::vector<ModuleRow> m_rows;
};

class AllocatorTableModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { Name, Allocations, Deallocations, MaxInUse, LifetimePeak, Capacity, ColumnCount };

  explicit AllocatorTableModel(QObject* parent = nullptr);
  void setRows(std::vector<AllocatorRow> rows);
  const std::vector<AllocatorRow>& rows() const { return m_rows; }

 protected:
  int recordCount() const override { return int(m_rows.size()); }
  QVariant rawValue(int row, int column) const override;
  QString unknownReason(int row, int column) const override;

 private:
  std::vector<AllocatorRow> m_rows;
};

class PlaneTableModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { Name, Lines, Events, ColumnCount };

  explicit PlaneTableModel(QObject* parent = nullptr);
  void setRows(std::vector<PlaneRow> rows);
  const std::vector<PlaneRow>& rows() const { return m_rows; }

 protected:
  int recordCount() const override { return int(m_rows.size()); }
  QVariant rawValue(int row, int column) const override;

 private:
  std::vector<PlaneRow> m_rows;
};

}  // namespace oomscope::ui
