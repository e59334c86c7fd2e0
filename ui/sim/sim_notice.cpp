#include "ui/sim/sim_notice.h"

#include "core/sim/agreement.h"
#include "ui/sim/outcome_style.h"
#include "ui/sim/sim_format.h"

namespace oomscope::ui {

namespace {

QString truncatedLine(const QString& letter, const RunData& r) {
  QString line = SimNotice::tr(
                     "<b>Run %1 is too large to keep whole</b>: the page keeps its first %2 steps "
                     "(%3 of %4 events); the tree, the list and the counters stop there.")
                     .arg(letter, simfmt::count(kMaxSteps), simfmt::count(std::int64_t(r.log.events.size())),
                          simfmt::count(r.wholeRunEvents));
  if (r.wholeRun) {
    const sim::Totals& t = *r.wholeRun;
    line += SimNotice::tr(
                " The whole run: %1 attempts (%2 OOM), %3 points dropped, %4 of the points reached "
                "the optimizer step%5.")
                .arg(simfmt::count(t.attempts), simfmt::count(t.oom_attempts),
                     simfmt::count(t.points_dropped), simfmt::percent(t.applied_point_fraction()),
                     t.crashes ? SimNotice::tr(", then it crashed") : QString());
  } else {
    line += SimNotice::tr(" The trace has no totals line, so the whole run's counters are unknown.");
  }
  return line;
}

}  // namespace

SimNotice::SimNotice(QWidget* parent) : QLabel(parent) {
  setObjectName(QStringLiteral("simNotice"));
  setWordWrap(true);
  setTextFormat(Qt::RichText);
  setTextInteractionFlags(Qt::TextSelectableByMouse);
  setStyleSheet(
      QStringLiteral("background:#fff8e1; color:#5c4400; border:1px solid #f0d68a; padding:4px 8px;"));
  hide();
}

void SimNotice::showRuns(const RunPtr& a, const RunPtr& b, bool predicting) {
  QStringList lines;
  if (a && a->truncated) lines << truncatedLine(QStringLiteral("A"), *a);
  if (b && b->truncated) lines << truncatedLine(QStringLiteral("B"), *b);
  if (predicting && a && b && a->realRun) {
    const sim::Agreement g = sim::compare_outcomes(a->log, b->log);
    QString line = tr("<b>Real run (A) vs prediction (B)</b>: the same outcome for %1 of %2 events (%3)")
                       .arg(simfmt::count(g.same), simfmt::count(std::max(g.events_a, g.events_b)),
                            simfmt::percent(g.fraction()));
    if (g.first_divergence < 0) {
      line += tr("; no divergence.");
    } else {
      const auto i = std::size_t(g.first_divergence);
      auto outcome = [i](const RunData& r) {
        return i < r.log.events.size() ? sim_style::outcomeLabel(r.log.events[i].outcome)
                                       : tr("nothing (run ended)");
      };
      line += tr("; first divergence at event #%1: A %2, B %3.")
                  .arg(g.first_divergence)
                  .arg(outcome(*a), outcome(*b));
    }
    if (a->truncated || b->truncated) line += tr(" (Over the kept events only.)");
    lines << line;
  }
  setText(lines.join(QStringLiteral("<br>")));
  setVisible(!lines.isEmpty());
}

}  // namespace oomscope::ui
