#include "ui/sim/totals_model.h"

#include <QColor>
#include <cmath>
#include <limits>

#include "ui/session/safe_text_qt.h"
#include "ui/sim/sim_format.h"

namespace oomscope::ui {

namespace {

enum class Kind { Count, Fraction, Duration };

struct RowSpec {
  const char* name;
  const char* how;
  Kind kind;
  bool lowerIsBetter;
  // What a trace must carry for the row to be known at every step: nothing (derived from the events), the
  // gradient policy, the time model, or the simulator's own counters (known at a trace's totals line only).
  enum Need { None, Grad, Model, Sim } need;
};

// Order matches SimTotalsModel::Row.
constexpr RowSpec kRows[] = {
    {"Attempts", "Forward passes started: ok + OOM + bug + crash.", Kind::Count, true, RowSpec::None},
    {"Retries", "Attempts on a fragment that is not a whole batch.", Kind::Count, true, RowSpec::None},
    {"Wasted passes", "Failed attempts (OOM + bug + crash): compute thrown away.", Kind::Count, true,
     RowSpec::None},
    {"OOMs caught", "Attempts that ran out of memory and were split and re-queued.", Kind::Count, true,
     RowSpec::None},
    {"Bugs swallowed", "Non-OOM exceptions caught by `except Exception` and treated as OOM.", Kind::Count,
     true, RowSpec::None},
    {"Crashes", "A bug under oom-only: the run stops loudly (good: the bug is visible).", Kind::Count, false,
     RowSpec::None},
    {"Optimizer steps", "Batches whose queue emptied and ended in optimizer.step().", Kind::Count, false,
     RowSpec::None},
    {"Fragments dropped", "Spatial halves with <= floor points, never trained.", Kind::Count, true,
     RowSpec::None},
    {"Points dropped", "Points in dropped fragments.", Kind::Count, true, RowSpec::None},
    {"Scenes dropped", "Scenes of which no point was trained.", Kind::Count, true, RowSpec::None},
    {"Gradient in step: points",
     "Points whose gradient reached optimizer.step(), over points in the batches started.", Kind::Fraction,
     false, RowSpec::Grad},
    {"Gradient in step: scenes", "Scenes with at least one point in the step, over scenes started.",
     Kind::Fraction, false, RowSpec::Grad},
    {"Gradients discarded", "Ok attempts whose gradient the next zero_grad() cleared (last-fragment policy).",
     Kind::Count, true, RowSpec::Grad},
    {"Steps renormalised",
     "Accumulate: steps whose loss scales (each fragment's share of the batch) summed to under "
     "1 because points were dropped, and were renormalised.",
     Kind::Count, true, RowSpec::Grad},
    {"Points in spatial halves", "Points trained in spatially split fragments.", Kind::Count, true,
     RowSpec::None},
    {"BatchNorm from a half",
     "Points normalised with a spatial half's BatchNorm statistics (biased); 0 with frozen "
     "statistics or GroupNorm.",
     Kind::Count, true, RowSpec::Sim},
    {"BatchNorm on ≤ 2× floor",
     "Successful attempts on at most twice the floor's points with BatchNorm statistics "
     "of their own (degenerate).",
     Kind::Count, true, RowSpec::Sim},
    {"Kept at the floor", "--on-floor keep: halves at or under the floor trained instead of dropped.",
     Kind::Count, false, RowSpec::Sim},
    {"empty_cache() calls", "One per caught failure; each returns part of the fragmented memory.",
     Kind::Count, true, RowSpec::None},
    {"Simulated time", "Simulated wall clock, including failed attempts, host copies and cache flushes.",
     Kind::Duration, true, RowSpec::None},
    {"Overhead vs OOM-free",
     "(time - OOM-free time) / OOM-free time, the same batches with unlimited memory.", Kind::Fraction, true,
     RowSpec::Model},
};
static_assert(std::size(kRows) == SimTotalsModel::RowCount);

double rawValue(int row, const sim::Totals& t) {
  switch (row) {
    case SimTotalsModel::Attempts:
      return double(t.attempts);
    case SimTotalsModel::Retries:
      return double(t.retries);
    case SimTotalsModel::Wasted:
      return double(t.wasted_forward_passes);
    case SimTotalsModel::Ooms:
      return double(t.oom_attempts);
    case SimTotalsModel::BugsSwallowed:
      return double(t.bug_attempts);
    case SimTotalsModel::Crashes:
      return double(t.crashes);
    case SimTotalsModel::OptimizerSteps:
      return double(t.optimizer_steps);
    case SimTotalsModel::DroppedFragments:
      return double(t.dropped_fragments);
    case SimTotalsModel::PointsDropped:
      return double(t.points_dropped);
    case SimTotalsModel::ScenesDropped:
      return double(t.scenes_dropped);
    case SimTotalsModel::GradientPoints:
      return t.applied_point_fraction();
    case SimTotalsModel::GradientScenes:
      return t.applied_scene_fraction();
    case SimTotalsModel::DiscardedGradients:
      return double(t.discarded_gradients);
    case SimTotalsModel::Renormalised:
      return double(t.renormalised_steps);
    case SimTotalsModel::SpatialPoints:
      return double(t.points_spatial);
    case SimTotalsModel::NormBiased:
      return double(t.norm_biased_points);
    case SimTotalsModel::NormSmall:
      return double(t.norm_small_fragments);
    case SimTotalsModel::FloorKept:
      return double(t.floor_kept_fragments);
    case SimTotalsModel::EmptyCache:
      return double(t.empty_cache_calls);
    case SimTotalsModel::SimTime:
      return double(t.time_ns);
    case SimTotalsModel::Overhead:
      return t.overhead();
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace

SimTotalsModel::SimTotalsModel(QObject* parent) : QAbstractTableModel(parent) {}

void SimTotalsModel::setRuns(RunPtr a, RunPtr b) {
  beginResetModel();
  m_runs = {std::move(a), std::move(b)};
  for (int r = 0; r < 2; ++r)
    m_steps[std::size_t(r)] =
        m_runs[std::size_t(r)] ? std::min(m_steps[std::size_t(r)], m_runs[std::size_t(r)]->steps()) : 0;
  endResetModel();
}

void SimTotalsModel::setSteps(std::int64_t stepA, std::int64_t stepB) {
  const std::int64_t want[2] = {stepA, stepB};
  bool changed = false;
  for (std::size_t r = 0; r < 2; ++r) {
    if (want[r] < 0 || !m_runs[r]) continue;
    const auto s = std::clamp<std::int64_t>(want[r], 0, m_runs[r]->steps());
    changed |= s != m_steps[r];
    m_steps[r] = s;
  }
  if (changed && runCount() > 0) emit dataChanged(index(0, 1), index(RowCount - 1, columnCount() - 1));
}

int SimTotalsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : RowCount; }

int SimTotalsModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  const int n = runCount();
  return n == 2 ? 4 : 1 + n;
}

double SimTotalsModel::value(int row, int run) const {
  const auto& r = m_runs[std::size_t(run)];
  if (!r || row < 0 || row >= RowCount) return std::numeric_limits<double>::quiet_NaN();
  const auto step = m_steps[std::size_t(run)];
  const bool atFinalTotals = r->hasFinalTotals && step == r->steps();
  const auto need = kRows[row].need;
  const bool known = need == RowSpec::None || atFinalTotals || (need == RowSpec::Grad && r->gradMode) ||
                     (need == RowSpec::Model && r->modelCountersKnownAt(step)) ||
                     (need == RowSpec::Sim && !r->fromTrace);
  if (!known) return std::numeric_limits<double>::quiet_NaN();
  return rawValue(row, r->stepTotals[std::size_t(step)]);
}

QString SimTotalsModel::format(int row, double v) const {
  if (std::isnan(v)) return QStringLiteral("—");
  switch (kRows[row].kind) {
    case Kind::Count:
      return simfmt::count(std::int64_t(v));
    case Kind::Fraction:
      return simfmt::percent(v);
    case Kind::Duration:
      return simfmt::duration(std::int64_t(v));
  }
  return {};
}

QString SimTotalsModel::formatDelta(int row, double d) const {
  if (std::isnan(d)) return QStringLiteral("—");
  switch (kRows[row].kind) {
    case Kind::Count:
      return simfmt::signedCount(std::int64_t(d));
    case Kind::Fraction:
      return simfmt::signedPoints(d);
    case Kind::Duration:
      return simfmt::signedDuration(std::int64_t(d));
  }
  return {};
}

QVariant SimTotalsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= RowCount || index.column() >= columnCount()) return {};
  const int row = index.row(), col = index.column();
  const RowSpec& spec = kRows[row];
  const bool isDelta = runCount() == 2 && col == 3;
  const int run = runOfColumn(col);
  if (col == 0) {
    if (role == Qt::DisplayRole) return QString::fromUtf8(spec.name);
    if (role == Qt::ToolTipRole) return QString::fromUtf8(spec.how);
    return {};
  }
  const double v = isDelta ? value(row, 1) - value(row, 0) : value(row, run);
  switch (role) {
    case Qt::DisplayRole:
      return isDelta ? formatDelta(row, v) : format(row, v);
    case ValueRole:
      return std::isnan(v) ? QVariant() : QVariant(v);
    case Qt::TextAlignmentRole:
      return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
      if (std::isnan(v))
        return QStringLiteral("Unknown here: this trace does not carry the model needed for it.");
      QString exact = spec.kind == Kind::Fraction ? QString::number(100.0 * v, 'f', 4) + QStringLiteral(" %")
                      : spec.kind == Kind::Duration
                          ? simfmt::count(std::int64_t(v)) + QStringLiteral(" ns (simulated)")
                          : simfmt::count(std::int64_t(v));
      if (isDelta) return QStringLiteral("B - A = ") + exact;
      const auto& r = m_runs[std::size_t(run)];
      if (!r) return {};
      const QString tag = r->fromTrace && !(r->hasFinalTotals && m_steps[std::size_t(run)] == r->steps())
                              ? QStringLiteral("derived from the trace's events")
                          : r->fromTrace ? QStringLiteral("read from the trace's totals line")
                                         : QStringLiteral("derived by the simulator");
      return exact + QStringLiteral(" (") + tag + QStringLiteral(")");
    }
    case Qt::ForegroundRole: {
      if (!isDelta || std::isnan(v) || std::fabs(v) < 1e-12) return {};
      const bool better = spec.lowerIsBetter ? v < 0 : v > 0;
      return better ? QColor(0x1e, 0x7e, 0x3c) : QColor(0xb4, 0x23, 0x18);
    }
    default:
      return {};
  }
}

QVariant SimTotalsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= columnCount() || section > 3) return {};
  const bool isDelta = runCount() == 2 && section == 3;
  if (role == Qt::DisplayRole) {
    if (section == 0) return QStringLiteral("Counter");
    if (isDelta) return QStringLiteral("B − A");
    // Views may ask about a column while a reset is under way: never assume the run is there.
    const auto& r = m_runs[std::size_t(section - 1)];
    // Long trace file names would squeeze the counter names: elide, the tooltip has the source in full.
    QString title = r ? r->title : QString();
    if (title.size() > 14) title = title.left(13) + QStringLiteral("…");
    return QStringLiteral("%1 · %2").arg(section == 1 ? QStringLiteral("A") : QStringLiteral("B"), title);
  }
  if (role == Qt::ToolTipRole && section > 0 && !isDelta && m_runs[std::size_t(section - 1)])
    return plainToolTip(m_runs[std::size_t(section - 1)]->source);
  if (role == Qt::TextAlignmentRole && section > 0) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

}  // namespace oomscope::ui
