#include "ui/sim/sim_alternatives.h"

#include "ui/sim/sim_format.h"

namespace oomscope::ui {

SimAlternatives::SimAlternatives(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::RichText);
  setWordWrap(true);
  setToolTip(
      tr("The same scenes and epochs without split-and-retry, priced by the same memory and time model "
         "(derived by the simulator)"));
  setAlignment(Qt::AlignTop | Qt::AlignLeft);
  setContentsMargins(6, 6, 6, 6);
}

void SimAlternatives::setRun(const RunPtr& run) {
  if (!run || !run->baselines) {
    setText(run ? tr("<span style='color:#5b636d'>No alternatives: this trace carries no baselines.</span>")
                : QString());
    return;
  }
  const auto& t = run->stepTotals.back();
  const double budget = run->config ? double(run->config->memory.budget) : 0.0;
  const double util =
      t.ok_attempts && budget > 0 ? double(t.ok_bytes_sum) / double(t.ok_attempts) / budget : 0.0;
  auto item = [](const QString& name, const QString& text) {
    return QStringLiteral("<p style='margin:0 0 6px 0'><b>%1</b><br>%2</p>").arg(name, text);
  };
  auto figures = [](std::int64_t attempts, std::int64_t ns, double use) {
    return tr("%1 attempts, %2 simulated, %3 of the budget used on average")
        .arg(simfmt::count(attempts), simfmt::duration(ns), simfmt::percent(use));
  };
  auto baseline = [&](const QString& name, const sim::BaselineResult& b, const QString& shape) {
    if (!b.feasible)
      return item(name,
                  tr("not possible: one scene alone exceeds the budget, so only splitting can train it"));
    return item(name + QStringLiteral(" · ") + shape, figures(b.attempts, b.time_ns, b.mean_utilisation));
  };
  const auto& bl = *run->baselines;
  QString html =
      tr("<p style='color:#5b636d; margin:0 0 8px 0'>The same scenes and epochs as run A, priced by A's "
         "memory and "
         "time model (derived by the simulator).</p>");
  html += item(tr("Split and retry (run A) · %1 optimizer steps").arg(simfmt::count(t.optimizer_steps)),
               figures(t.attempts, t.time_ns, util));
  html += baseline(
      tr("Lazy fix"), bl.lazy_fix,
      (bl.lazy_fix.scenes_per_attempt == 1 ? tr("1 scene per step")
                                           : tr("%1 scenes per step").arg(bl.lazy_fix.scenes_per_attempt)) +
          tr(", %1 steps").arg(simfmt::count(bl.lazy_fix.optimizer_steps)));
  html += baseline(
      tr("Micro-batches with accumulation"), bl.micro_batch,
      tr("%1 scenes × %2 per step").arg(bl.micro_batch.scenes_per_attempt).arg(bl.micro_batch.accumulation));
  setText(html);
}

}  // namespace oomscope::ui
