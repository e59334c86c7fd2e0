#pragma once
// Two small models over an analysis report:
//   RoleTotalsModel   the role breakdown at the plan's peak (role, buffers, bytes, % of the peak), largest
//                     first, for the Buffers page's totals and the Plan page's legend table;
//   ReportModuleModel every module of the capture for the module selector, by planned peak (largest first),
//                     the default module marked with the reason it is the default; each module's executions
//                     are those of the report (in the time selection when the report has one, and then
//                     said so).

#include <QAbstractListModel>
#include <memory>
#include <optional>
#include <vector>

#include "core/analysis/report/report.h"
#include "ui/models/record_table_model.h"

namespace oomscope::ui {

class RoleTotalsModel : public RecordTableModel {
  Q_OBJECT

 public:
  enum Column { Role, Buffers, Bytes, PercentOfPeak, ColumnCount };

  explicit RoleTotalsModel(QObject* parent = nullptr);
  void setReport(std::shared_ptr<const analysis::HostReport> report);
  const analysis::RoleTotal& total(int row) const { return m_totals[std::size_t(row)]; }

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 protected:
  int recordCount() const override { return int(m_totals.size()); }
  QVariant rawValue(int row, int column) const override;

 private:
  std::vector<analysis::RoleTotal> m_totals;
};

class ReportModuleModel : public QAbstractListModel {
  Q_OBJECT

 public:
  enum ExtraRole {
    ProgramIdRole = Qt::UserRole + 1,  // quint64, for AnalysisPages::selectProgram
    IsDefaultRole,                     // bool
    PeakBytesRole,                     // qint64
  };

  explicit ReportModuleModel(QObject* parent = nullptr);

  // defaultIndex: index into report.modules of the module the capture analyses by default, and why.
  // inSelection: the rows' executions are those inside a time selection (a re-scoped report).
  void setModules(const std::vector<analysis::ModuleRow>& modules, std::optional<std::size_t> defaultIndex,
                  analysis::ModuleChoice defaultChoice, bool inSelection = false);
  void clear();
  // Row of the module at index `moduleIndex` of the report's module list; -1 when absent.
  int rowOfModule(std::optional<std::size_t> moduleIndex) const;
  int defaultRow() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 private:
  struct Entry {
    analysis::ModuleRow row;
    std::size_t index = 0;
    bool isDefault = false;
  };
  std::vector<Entry> m_entries;
  analysis::ModuleChoice m_choice = analysis::ModuleChoice::None;
  bool m_inSelection = false;
};

}  // namespace oomscope::ui
