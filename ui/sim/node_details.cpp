#include "ui/sim/node_details.h"

#include "ui/sim/event_table_model.h"
#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_format.h"

namespace oomscope::ui {

namespace {

QString row(const QString& key, const QString& value) {
  return QStringLiteral("<tr><td style='color:#5b636d; padding-right:10px'>%1</td><td>%2</td></tr>")
      .arg(key, value);
}

QString boxText(const sim::Bbox& b) {
  QStringList parts;
  for (int a = 0; a < 3; ++a)
    parts << QStringLiteral("%1 %2…%3")
                 .arg(simfmt::axisName(a))
                 .arg(double(b.lo[a]), 0, 'f', 2)
                 .arg(double(b.hi[a]), 0, 'f', 2);
  return parts.join(QStringLiteral(", "));
}

}  // namespace

QString nodeDetailsHtml(const RunData& run, std::int64_t id, std::int64_t step) {
  if (id < 0 || std::size_t(id) >= run.log.events.size()) return {};
  const sim::Event& e = run.log.events[std::size_t(id)];
  const QColor col = sim_style::outcomeColor(e.outcome);
  QString html = QStringLiteral(
                     "<div style='font-weight:600'>Attempt #%1 "
                     "<span style='color:%2'>● %3</span></div><table cellspacing='0' cellpadding='1'>")
                     .arg(e.id)
                     .arg(col.name(), sim_style::outcomeLabel(e.outcome));
  html += row(QStringLiteral("Step, batch"),
              QStringLiteral("step %1, batch index %2, epoch %3").arg(e.step).arg(e.batch).arg(e.epoch));
  QString origin = simfmt::originName(e.origin);
  if (e.parent >= 0) origin += QStringLiteral(" of #%1").arg(e.parent);
  origin += QStringLiteral(", depth %1").arg(e.depth);
  html += row(QStringLiteral("Origin"), origin);
  const auto scenes = run.log.scenes(e);
  html += row(scenes.size() == 1 ? QStringLiteral("Scene") : QStringLiteral("Scenes (%1)").arg(scenes.size()),
              SimEventTableModel::sceneList(run, e, 12));
  html += row(QStringLiteral("Points"), simfmt::count(e.points));
  html += row(QStringLiteral("Bounding box"), boxText(e.bbox));
  if (e.axis >= 0)
    html += row(QStringLiteral("Split"),
                QStringLiteral("on %1 at %2 (%3)")
                    .arg(simfmt::axisName(e.axis))
                    .arg(e.split_value, 0, 'f', 3)
                    .arg(e.origin == sim::Origin::SpatialLow ? QStringLiteral("coordinate below")
                                                             : QStringLiteral("coordinate at or above")));
  if (e.outcome == sim::Outcome::Dropped) {
    html += row(QStringLiteral("Memory"), QStringLiteral("no forward pass (dropped)"));
  } else {
    const bool over = e.bytes_needed > e.available;
    html += row(QStringLiteral("Needed"),
                QStringLiteral("<span style='color:%1; font-weight:600'>%2</span> of %3 available")
                    .arg(over ? sim_style::overBudget().name() : QStringLiteral("#1e7e3c"),
                         simfmt::bytes(e.bytes_needed), simfmt::bytes(e.available)));
    QString budget = simfmt::bytes(e.budget);
    if (e.available < e.budget)
      budget +=
          QStringLiteral(", %1 fragmented by an earlier OOM").arg(simfmt::bytes(e.budget - e.available));
    html += row(QStringLiteral("Budget"), budget);
  }
  html +=
      row(QStringLiteral("Time"), QStringLiteral("starts at %1, takes %2")
                                      .arg(simfmt::duration(e.start_ns), simfmt::duration(e.duration_ns)));
  if (e.outcome == sim::Outcome::Ok)
    html += row(QStringLiteral("Loss scale"),
                e.loss_scale < 1.0
                    ? QStringLiteral("%1 (its share of the batch's points)").arg(e.loss_scale, 0, 'g', 4)
                    : QStringLiteral("1"));

  const auto& L = run.layout;
  if (std::size_t(id) < L.nodeCount()) {
    const auto b = L.childBegin[std::size_t(id)], en = L.childBegin[std::size_t(id) + 1];
    if (b != en) {
      const auto reached = run.eventsAfter(step);
      QStringList kids;
      for (auto c = b; c < en && kids.size() < 8; ++c) {
        const auto k = L.children[std::size_t(c)];
        kids << (k < reached ? QStringLiteral("#%1 %2").arg(k).arg(
                                   sim_style::outcomeLabel(run.log.events[std::size_t(k)].outcome))
                             : QStringLiteral("#%1 queued").arg(k));
      }
      if (en - b > 8) kids << QStringLiteral("+%1 more").arg(en - b - 8);
      html += row(QStringLiteral("Then"),
                  QStringLiteral("split into %1: %2").arg(en - b).arg(kids.join(QStringLiteral(", "))));
    }
  }
  html += QStringLiteral("</table>");
  return html;
}

}  // namespace oomscope::ui
