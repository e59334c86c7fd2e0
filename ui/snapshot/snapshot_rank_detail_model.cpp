#include "ui/snapshot/snapshot_rank_detail_model.h"

#include <algorithm>

#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

using Kind = RecordTableModel::CellKind;
using Origin = RecordTableModel::Origin;
using Spec = RecordTableModel::ColumnSpec;

std::vector<Spec> columnsOf(SnapshotRankDetailModel::Part part) {
  const Spec bytes{QStringLiteral("Bytes"), QStringLiteral("Bytes live at the rank's own peak."), Kind::Bytes,
                   Origin::Derived,
                   QStringLiteral("the blocks allocated at the Active Memory Timeline's peak, summed.")};
  if (part == SnapshotRankDetailModel::Part::Sites)
    return {
        {QStringLiteral("Allocation site"),
         QStringLiteral("The innermost user frame of the allocations' stacks; the full text in the tooltip."),
         Kind::Text, Origin::Derived, QStringLiteral("the first frame that is not PyTorch's own.")},
        bytes};
  return {
      {QStringLiteral("Category"),
       QStringLiteral("What the memory is: a category of your rules when loaded, else guessed from stacks."),
       Kind::Text, Origin::Derived,
       QStringLiteral("the first matching rule of your file, then the built-in rules (docs/categories.md).")},
      bytes,
      {QStringLiteral("Allocations"), QStringLiteral("Blocks of this category live at the peak."),
       Kind::Count, Origin::Derived, QStringLiteral("counted at the peak.")},
      {QStringLiteral("Rule"), QStringLiteral("The rule that decided the category's largest allocation."),
       Kind::Text, Origin::Derived, QStringLiteral("the rule that matched first.")}};
}

}  // namespace

std::vector<SnapshotRankDetailRow> SnapshotRankDetailModel::rowsOf(const snapshot::RankFigures& f,
                                                                   Part part) {
  std::vector<SnapshotRankDetailRow> rows;
  if (part == Part::Categories) {
    for (const snapshot::CategoryTotal& t : f.categories)
      rows.push_back({safeText(t.label()), t.bytes, qint64(t.count), safeText(t.rule)});
    return rows;
  }
  for (const auto& [site, bytes] : f.sites) rows.push_back({safeText(site), bytes, -1, {}});
  std::stable_sort(
      rows.begin(), rows.end(),
      [](const SnapshotRankDetailRow& a, const SnapshotRankDetailRow& b) { return a.bytes > b.bytes; });
  return rows;
}

SnapshotRankDetailModel::SnapshotRankDetailModel(Part part, QObject* parent)
    : RecordTableModel(columnsOf(part), parent), m_part(part) {}

void SnapshotRankDetailModel::setRows(std::vector<SnapshotRankDetailRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant SnapshotRankDetailModel::rawValue(int row, int column) const {
  const SnapshotRankDetailRow& r = m_rows.at(std::size_t(row));
  switch (column) {
    case Name:
      return r.name;
    case Bytes:
      return r.bytes;
    case Count:
      return r.count >= 0 ? QVariant(r.count) : QVariant();
    case Rule:
      return r.rule;
    default:
      return {};
  }
}

}  // namespace oomscope::ui
