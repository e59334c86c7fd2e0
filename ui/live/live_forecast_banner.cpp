#include "ui/live/live_forecast_banner.h"

#include "ui/live/rank_table_model.h"

namespace oomscope::ui {

LiveForecastBanner::LiveForecastBanner(QWidget* parent) : QLabel(parent) {
  setObjectName(QStringLiteral("forecastBanner"));
  setTextFormat(Qt::PlainText);  // agents' names and figures: never markup
  setWordWrap(true);
  setToolTip(
      tr("Derived from the samples: the forecast model is said in each rank's forecast (docs/live.md, "
         "\"The OOM forecast\")."));
  hide();
}

void LiveForecastBanner::showRows(const QVector<LiveRankRow>& rows) {
  bool oom = false;
  const QString banner = ui::forecastBanner(rows, &oom);
  setText(banner);
  setVisible(!banner.isEmpty());
  setStyleSheet(oom ? QStringLiteral("QLabel { background: #fde2e1; color: #8b1a1a; padding: 4px; }")
                    : QStringLiteral("QLabel { background: #eef3ee; color: #2b4d2b; padding: 4px; }"));
}

}  // namespace oomscope::ui
