#include "ui/models/snapshot_rank_imbalance_model.h"

#include <QLocale>
#include <cmath>

#include "core/util/bytes.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

using Kind = RecordTableModel::CellKind;
using Origin = RecordTableModel::Origin;

qint64 whole(double v) { return qint64(std::llround(v)); }

RankImbalanceRow imbalanceRow(const snapshot::Imbalance& im) {
  RankImbalanceRow r;
  r.what = QStringLiteral("imbalance (max / median)");
  r.name = safeText(im.name);
  r.bytes = im.max_bytes;
  r.median = whole(im.median);
  r.figure = im.ratio
                 ? QStringLiteral("%1x (rank %2)").arg(QLocale().toString(*im.ratio, 'f', 2)).arg(im.max_rank)
                 : QStringLiteral("no ratio: the median rank holds none (max on rank %1)").arg(im.max_rank);
  return r;
}

RankImbalanceRow differenceRow(const snapshot::RankDifference& d, std::int64_t rank, const QString& kind) {
  RankImbalanceRow r;
  r.what = QStringLiteral("rank %1 beyond the median (%2)").arg(rank).arg(kind);
  r.name = safeText(d.name);
  r.bytes = d.bytes;
  r.median = whole(d.median);
  const double diff = d.difference();
  r.figure = (diff < 0 ? QStringLiteral("-") : QStringLiteral("+")) +
             QString::fromStdString(format_bytes(static_cast<std::int64_t>(whole(std::abs(diff)))));
  return r;
}

}  // namespace

std::vector<RankImbalanceRow> rankImbalanceRows(const snapshot::RankComparison& c) {
  std::vector<RankImbalanceRow> rows;
  for (const snapshot::RankDifference& d : c.verdict.categories)
    rows.push_back(differenceRow(d, c.verdict.rank, QStringLiteral("category")));
  for (const snapshot::RankDifference& d : c.verdict.sites)
    rows.push_back(differenceRow(d, c.verdict.rank, QStringLiteral("site")));
  rows.push_back(imbalanceRow(c.peak_allocated));
  rows.push_back(imbalanceRow(c.peak_reserved));
  for (const snapshot::Imbalance& im : c.categories) rows.push_back(imbalanceRow(im));
  return rows;
}

std::vector<RankImbalanceRow> rankImbalanceRows(const snapshot::KinetoRankJob& j) {
  return {imbalanceRow(j.peak_allocated), imbalanceRow(j.peak_reserved)};
}

RankImbalanceModel::RankImbalanceModel(QObject* parent)
    : RecordTableModel(
          {{QStringLiteral("What"), QStringLiteral("Which comparison the row is."), Kind::Text,
            Origin::Derived, QStringLiteral("over every rank's bytes at its own peak.")},
           {QStringLiteral("Name"), QStringLiteral("A category (guessed from stacks) or an allocation site."),
            Kind::Text, Origin::Derived, QStringLiteral("the innermost user frame for a site.")},
           {QStringLiteral("Bytes"), QStringLiteral("The verdict rank's bytes, or the most of any rank."),
            Kind::Bytes, Origin::Derived, QStringLiteral("bytes live at the rank's peak.")},
           {QStringLiteral("Median"),
            QStringLiteral("The median rank's bytes (mean of the two middle ones)."), Kind::Bytes,
            Origin::Derived, QStringLiteral("the median over the ranks, rounded to a byte.")},
           {QStringLiteral("Figure"),
            QStringLiteral("max / median, or the verdict rank's bytes minus the median."), Kind::Text,
            Origin::Derived, QStringLiteral("from the two columns before.")}},
          parent) {}

void RankImbalanceModel::setRows(std::vector<RankImbalanceRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant RankImbalanceModel::rawValue(int row, int column) const {
  const RankImbalanceRow& r = m_rows.at(std::size_t(row));
  switch (column) {
    case What:
      return r.what;
    case Name:
      return r.name;
    case Bytes:
      return r.bytes;
    case Median:
      return r.median;
    case Figure:
      return r.figure;
    default:
      return {};
  }
}

}  // namespace oomscope::ui
