#pragma once
// The attempts of one run up to its cursor, one event per row (the attempt of each step and the halves it
// dropped). Moving the cursor inserts or removes rows at the end instead of resetting, so a view that shows
// the latest row stays cheap while a long run plays.

#include <QAbstractTableModel>
#include <cstdint>

#include "ui/sim/run_data.h"

namespace oomscope::ui {

class SimEventTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Id,
    Step,
    Batch,
    Depth,
    Origin,
    Outcome,
    Scenes,
    Points,
    Needed,
    Available,
    Start,
    Duration,
    ColumnCount
  };
  enum Role { EventIdRole = Qt::UserRole + 1, SortRole };

  explicit SimEventTableModel(QObject* parent = nullptr);

  void setRun(RunPtr run, std::int64_t step = 0);
  void setStep(std::int64_t step);
  const RunPtr& run() const { return m_run; }
  std::int64_t step() const { return m_step; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // "3, 17, 41" (at most `limit` ids, then "+N more").
  static QString sceneList(const RunData& run, const sim::Event& e, int limit = 6);

 private:
  RunPtr m_run;
  std::int64_t m_step = 0;
  int m_rows = 0;
};

}  // namespace oomscope::ui
