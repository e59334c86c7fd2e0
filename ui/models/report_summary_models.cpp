#include "ui/models/report_summary_models.h"

#include <QFont>
#include <QLocale>
#include <algorithm>

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

std::vector<RecordTableModel::ColumnSpec> roleColumns() {
  using K = RecordTableModel::CellKind;
  using O = RecordTableModel::Origin;
  const QString replay = QStringLiteral("replay of XLA's heap-simulator trace to the peak");
  return {
      {QStringLiteral("Role"), QStringLiteral("Why the buffers exist."), K::Text, O::Derived,
       QStringLiteral("from the JAX name stack in op_name")},
      {QStringLiteral("Buffers"), QStringLiteral("Buffers of this role live at the peak."), K::Count,
       O::Derived, replay},
      {QStringLiteral("Bytes"), QStringLiteral("Their total size."), K::Bytes, O::Derived, replay},
      {QStringLiteral("% of peak"), QStringLiteral("Share of the plan's peak."), K::Count, O::Derived,
       QStringLiteral("bytes / the plan's peak")},
  };
}

}  // namespace

RoleTotalsModel::RoleTotalsModel(QObject* parent) : RecordTableModel(roleColumns(), parent) {}

void RoleTotalsModel::setReport(std::shared_ptr<const analysis::HostReport> report) {
  beginResetModel();
  m_totals.clear();
  if (report && report->plan && report->plan->status == analysis::PlanStatus::Ok)
    m_totals = report->plan->role_totals;
  std::stable_sort(m_totals.begin(), m_totals.end(),
                   [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  endResetModel();
}

QVariant RoleTotalsModel::rawValue(int row, int column) const {
  const analysis::RoleTotal& t = total(row);
  switch (column) {
    case Role:
      return roleText(t.role);
    case Buffers:
      return qint64(t.buffers);
    case Bytes:
      return qint64(t.bytes);
    case PercentOfPeak:
      return t.percent_of_peak;
    default:
      return {};
  }
}

QVariant RoleTotalsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const analysis::RoleTotal& t = total(index.row());
  if (index.column() == Role && role == Qt::DecorationRole) return roleColor(t.role);
  if (index.column() == Role && role == Qt::ToolTipRole) return roleMeaning(t.role);
  if (index.column() == PercentOfPeak) {
    if (role == Qt::DisplayRole) return percentText(t.percent_of_peak);
    if (role == SortRole) return t.percent_of_peak;
    if (role == Qt::ToolTipRole) {
      QString tip = QStringLiteral("%1 % of the peak").arg(t.percent_of_peak, 0, 'f', 2);
      if (t.percent_of_heap_peak > 0)
        tip += QStringLiteral("; %1 % of the temp heap at the peak").arg(t.percent_of_heap_peak, 0, 'f', 1);
      return tip;
    }
  }
  return RecordTableModel::data(index, role);
}

ReportModuleModel::ReportModuleModel(QObject* parent) : QAbstractListModel(parent) {}

void ReportModuleModel::setModules(const std::vector<analysis::ModuleRow>& modules,
                                   std::optional<std::size_t> defaultIndex,
                                   analysis::ModuleChoice defaultChoice, bool inSelection) {
  beginResetModel();
  m_entries.clear();
  m_choice = defaultChoice;
  m_inSelection = inSelection;
  for (std::size_t i = 0; i < modules.size(); ++i) m_entries.push_back({modules[i], i, defaultIndex == i});
  std::stable_sort(m_entries.begin(), m_entries.end(),
                   [](const Entry& a, const Entry& b) { return a.row.peak_bytes > b.row.peak_bytes; });
  endResetModel();
}

void ReportModuleModel::clear() { setModules({}, std::nullopt, analysis::ModuleChoice::None); }

int ReportModuleModel::rowOfModule(std::optional<std::size_t> moduleIndex) const {
  if (!moduleIndex) return -1;
  for (std::size_t r = 0; r < m_entries.size(); ++r)
    if (m_entries[r].index == *moduleIndex) return int(r);
  return -1;
}

int ReportModuleModel::defaultRow() const {
  for (std::size_t r = 0; r < m_entries.size(); ++r)
    if (m_entries[r].isDefault) return int(r);
  return -1;
}

int ReportModuleModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_entries.size());
}

QVariant ReportModuleModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Entry& e = m_entries[std::size_t(index.row())];
  const bool planned = e.row.status != analysis::PlanStatus::NoBufferAssignment;
  switch (role) {
    case Qt::DisplayRole: {
      QString text = moduleLabel(e.row);
      text += planned ? QStringLiteral("  \u2014  %1").arg(bytesText(e.row.peak_bytes))
                      : QStringLiteral("  \u2014  no plan");
      text += QStringLiteral(", %1 execution%2%3")
                  .arg(e.row.executions)
                  .arg(e.row.executions == 1 ? QString() : QStringLiteral("s"),
                       m_inSelection ? QStringLiteral(" in the selection") : QString());
      if (e.isDefault) text += QStringLiteral("  \u2605 default: %1").arg(choiceText(m_choice));
      return text;
    }
    case Qt::ToolTipRole: {
      QString tip =
          QStringLiteral(
              "%1\nplanned peak %2 [derived]\ntemp %3, parameters %4 (donated %5), outputs %6 [read]\n"
              "%7 host executions in the %8 [measured]")
              .arg(moduleLabel(e.row), bytesWithExact(e.row.peak_bytes), bytesText(e.row.temp_bytes),
                   bytesText(e.row.parameters_bytes), bytesText(e.row.donated_bytes),
                   bytesText(e.row.outputs_bytes))
              .arg(e.row.executions)
              .arg(m_inSelection ? QStringLiteral("time selection") : QStringLiteral("capture"));
      if (e.isDefault) tip += QStringLiteral("\nAnalysed by default: %1.").arg(choiceText(m_choice));
      return plainToolTip(tip);
    }
    case Qt::FontRole:
      if (e.isDefault) {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    case ProgramIdRole:
      return quint64(e.row.program_id);
    case IsDefaultRole:
      return e.isDefault;
    case PeakBytesRole:
      return qint64(e.row.peak_bytes);
    default:
      return {};
  }
}

}  // namespace oomscope::ui
