#pragma once
// The Live page's banner above the charts: the soonest forecast OOM of any rank (red), or that none is
// forecast (green), in one sentence (forecastBanner() in rank_table_model.h). Hidden before the first
// forecast and for a new session.

#include <QLabel>
#include <QVector>

namespace oomscope::ui {

struct LiveRankRow;

class LiveForecastBanner : public QLabel {
  Q_OBJECT

 public:
  explicit LiveForecastBanner(QWidget* parent = nullptr);

  // Says what the rows' forecasts say (hidden when they say nothing yet).
  void showRows(const QVector<LiveRankRow>& rows);
};

}  // namespace oomscope::ui
