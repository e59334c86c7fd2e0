#pragma once
// The gap explained: the rows of a two-run diff by allocation site (user code line) and category, with the
// bytes live at each run's peak and the change, largest change first (SnapshotDiff::site_rows). The sort
// key (Qt::UserRole) of the change column is its size either way. For two JAX memory profiles: live bytes
// by Python line and kind (ProfileDiff::sites); for two Kineto traces none (the format has no sites).

#include <QAbstractTableModel>
#include <memory>

#include "ui/snapshot/run_overlay_result.h"

namespace oomscope::ui {

class SiteDiffModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Delta, A, B, Category, Site, Rule, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void setResult(std::shared_ptr<const RunOverlayResult> result);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  bool profileRows() const;
  QVariant profileData(const QModelIndex& index, int role) const;
  std::shared_ptr<const RunOverlayResult> m_result;
};

}  // namespace oomscope::ui
