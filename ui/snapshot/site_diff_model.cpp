#include "ui/snapshot/site_diff_model.h"

#include <QColor>

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {
QString signedBytes(qint64 v) {
  return (v > 0   ? QStringLiteral("+")
          : v < 0 ? QStringLiteral("\u2212")
                  : QString()) +
         bytesText(v < 0 ? -v : v);
}
}  // namespace

void SiteDiffModel::setResult(std::shared_ptr<const RunOverlayResult> result) {
  beginResetModel();
  m_result = std::move(result);
  endResetModel();
}

int SiteDiffModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_result) return 0;
  if (m_result->profile) return static_cast<int>(m_result->profile->sites.size());  // none for Kineto
  return static_cast<int>(m_result->diff.site_rows.size());
}

bool SiteDiffModel::profileRows() const { return m_result && m_result->noTimeAxis(); }

int SiteDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SiteDiffModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_result || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  if (m_result->profile) return profileData(index, role);
  const snapshot::DiffSiteRow& r = m_result->diff.site_rows[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Delta:
        return signedBytes(r.delta());
      case A:
        return bytesText(r.a);
      case B:
        return bytesText(r.b);
      case Category:
        return safeText(r.category);
      case Site:
        return safeText(r.site);
      case Rule:
        return safeText(r.rule);
      default:
        return {};
    }
  }
  if (role == Qt::UserRole) {  // sort keys
    switch (index.column()) {
      case Delta:  // the size of the change, either way: descending is core's order, largest change first
        return QVariant::fromValue<qint64>(r.delta() < 0 ? -r.delta() : r.delta());
      case A:
        return QVariant::fromValue<qint64>(r.a);
      case B:
        return QVariant::fromValue<qint64>(r.b);
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ForegroundRole && index.column() == Delta)
    return r.delta() < 0 ? QColor(0x1a, 0x7f, 0x37) : QColor(0xc8, 0x1e, 0x1e);
  if (role == Qt::TextAlignmentRole && index.column() <= B)
    return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && index.column() == Rule) return safeText(r.rule);
  return {};
}

// A JAX memory profile's row: live bytes at one Python line, of one kind (profile_diff.h).
QVariant SiteDiffModel::profileData(const QModelIndex& index, int role) const {
  const snapshot::ProfileSiteRow& r = m_result->profile->sites[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Delta:
        return signedBytes(r.delta());
      case A:
        return bytesText(r.a);
      case B:
        return bytesText(r.b);
      case Category:
        return r.kind.empty() ? QStringLiteral("-") : safeText(r.kind);
      case Site:
        return safeText(r.site);
      case Rule:
        return tr("%1 → %2 samples").arg(r.a_count).arg(r.b_count);
      default:
        return {};
    }
  }
  if (role == Qt::UserRole) {
    switch (index.column()) {
      case Delta:
        return QVariant::fromValue<qint64>(r.delta() < 0 ? -r.delta() : r.delta());
      case A:
        return QVariant::fromValue<qint64>(r.a);
      case B:
        return QVariant::fromValue<qint64>(r.b);
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ForegroundRole && index.column() == Delta)
    return r.delta() < 0 ? QColor(0x1a, 0x7f, 0x37) : QColor(0xc8, 0x1e, 0x1e);
  if (role == Qt::TextAlignmentRole && index.column() <= B)
    return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant SiteDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (profileRows()) {  // one moment of each run: no peak, a kind instead of a category
    switch (section) {
      case A:
        return tr("A live");
      case B:
        return tr("B live");
      case Category:
        return tr("Kind");
      case Site:
        return tr("Site (Python line)");
      case Rule:
        return tr("Samples");
      default:
        break;
    }
  }
  switch (section) {
    case Delta:
      return tr("B \u2212 A");
    case A:
      return tr("A at its peak");
    case B:
      return tr("B at its peak");
    case Category:
      return tr("Category");
    case Site:
      return tr("Site (user code line)");
    case Rule:
      return tr("Why this category");
    default:
      return {};
  }
}

}  // namespace oomscope::ui
