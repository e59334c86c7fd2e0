// Two live recordings on one axis (recording_overlay.h).

#include "core/live/client/recording_overlay.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <tuple>

#include "core/live/client/detail/rank_collector.h"
#include "core/live/client/detail/recording_gap.h"
#include "core/live/client/replay.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::live {

namespace {

// Hands each record to the store and to the rank figures, so one replay gives both.
class TeeSink final : public LiveSink {
 public:
  TeeSink(LiveSink& a, LiveSink& b) : a_(a), b_(b) {}
  void on_endpoint(int r, const std::string& e) override { a_.on_endpoint(r, e), b_.on_endpoint(r, e); }
  void on_hello(int r, const Hello& h) override { a_.on_hello(r, h), b_.on_hello(r, h); }
  void on_sample(int r, const Sample& s) override { a_.on_sample(r, s), b_.on_sample(r, s); }
  void on_event(int r, const Event& e) override { a_.on_event(r, e), b_.on_event(r, e); }
  void on_shapes(int r, const Shapes& s) override { a_.on_shapes(r, s), b_.on_shapes(r, s); }
  void on_disconnected(int r, std::int64_t t, const std::string& w) override {
    a_.on_disconnected(r, t, w), b_.on_disconnected(r, t, w);
  }
  void on_connected(int r, std::int64_t t) override { a_.on_connected(r, t), b_.on_connected(r, t); }
  void on_bad_line(int r, std::int64_t t, const std::string& e) override {
    a_.on_bad_line(r, t, e), b_.on_bad_line(r, t, e);
  }

 private:
  LiveSink& a_;
  LiveSink& b_;
};

const RankSeries* series_of(const OverlayRun& run, int rank) {
  const auto& ranks = run.store->ranks();
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks.size()) return nullptr;
  const RankSeries* s = &ranks[static_cast<std::size_t>(rank)];
  return s->samples.empty() ? nullptr : s;
}

bool carries_steps(const RankSeries* s) {
  return s && ((s->fields_seen >> static_cast<int>(Field::Step)) & 1u);
}

// The x of each sample of `field` on the chosen axis ([derived]); none when the sample lacks what it needs.
std::optional<double> x_of(const Sample& s, OverlayAxis axis, std::int64_t t0, double shift) {
  if (axis == OverlayAxis::Step) {
    if (!s.has(Field::Step)) return std::nullopt;
    return static_cast<double>(s.get(Field::Step)) + shift;
  }
  return static_cast<double>(s.t - t0) / 1e9 + shift;
}

void widen(const RankSeries* s, OverlayAxis axis, std::int64_t t0, double shift, double& lo, double& hi) {
  if (!s) return;
  for (const Sample& smp : s->samples)
    if (const auto x = x_of(smp, axis, t0, shift)) {
      lo = std::min(lo, *x);
      hi = std::max(hi, *x);
    }
}

// Each bucket's largest value at its own x, so the line's peak is the rank's peak exactly.
std::vector<OverlayPoint> cut(const RankSeries* s, Field field, OverlayAxis axis, std::int64_t t0,
                              double shift, double lo, double width, int buckets,
                              const std::stop_token& stop) {
  std::vector<OverlayPoint> out;
  if (!s) return out;
  std::vector<std::optional<OverlayPoint>> slots(static_cast<std::size_t>(buckets));
  std::size_t seen = 0;
  for (const Sample& smp : s->samples) {
    if ((++seen & 0xffff) == 0 && stop.stop_requested()) throw Cancelled("overlay");
    if (!smp.has(field)) continue;
    const auto x = x_of(smp, axis, t0, shift);
    if (!x) continue;
    const int b = std::clamp(static_cast<int>(std::floor((*x - lo) / width)), 0, buckets - 1);
    auto& slot = slots[static_cast<std::size_t>(b)];
    if (!slot || smp.get(field) > slot->bytes) slot = OverlayPoint{*x, smp.get(field)};
  }
  for (const auto& slot : slots)
    if (slot) out.push_back(*slot);
  return out;
}

std::optional<std::int64_t> peak(const std::vector<OverlayPoint>& line) {
  if (line.empty()) return std::nullopt;
  return std::max_element(line.begin(), line.end(), [](auto& p, auto& q) { return p.bytes < q.bytes; })
      ->bytes;
}

}  // namespace

OverlayRun read_overlay_run(const std::string& path, const std::stop_token& stop) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec) && !looks_like_recording(path))
    throw Error(ErrorKind::NotACapture, path,
                "not an oomscope live recording (no 'OOMSCOPE-LIVE-RECORDING 1' header): only another "
                "recording can be laid over a recording");
  auto store = std::make_shared<Store>();
  detail::RankCollector collector;
  TeeSink tee(*store, collector);
  const ReplayInfo info = replay_recording(path, tee, stop);
  OverlayRun run;
  run.path = path;
  run.ranks = detail::finish_comparison(path, "the recording", std::move(collector).take());
  if (info.truncated) run.ranks.truncated_note = info.note;
  run.store = std::move(store);
  return run;
}

RecordingOverlay overlay_recordings(const OverlayRun& a, const OverlayRun& b, const OverlayOptions& opts,
                                    const std::stop_token& stop) {
  RecordingOverlay o;
  o.rank = opts.rank;
  o.shift_b = opts.shift_b;
  const RankSeries* sa = series_of(a, opts.rank);
  const RankSeries* sb = series_of(b, opts.rank);
  if (!sa && !sb)
    throw Error(ErrorKind::Empty, a.path + " and " + b.path,
                "neither recording has a sample of rank " + std::to_string(opts.rank));
  const std::string r = "rank " + std::to_string(opts.rank);
  if (carries_steps(sa) && carries_steps(sb)) {
    o.axis = OverlayAxis::Step;
    o.axis_note = "aligned by step: " + r + "'s samples carry the trainer's step in both recordings [read]";
  } else {
    o.axis = OverlayAxis::Time;
    const char* which = !sa   ? "A has no sample of it"
                        : !sb ? "B has no sample of it"
                        : !carries_steps(sa) && !carries_steps(sb)
                            ? "neither recording's samples carry a step"
                        : !carries_steps(sa) ? "A's samples carry no step"
                                             : "B's samples carry no step";
    o.axis_note = "aligned by time since each recording's first sample: for " + r + ", " + which;
  }
  const std::int64_t ta = a.store->first_t(), tb = b.store->first_t();
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  widen(sa, o.axis, ta, 0, lo, hi);
  widen(sb, o.axis, tb, opts.shift_b, lo, hi);
  if (!(lo <= hi)) lo = hi = 0;  // samples without the step field only: nothing to draw
  o.x_min = lo;
  o.x_max = hi;
  const int buckets = std::max(1, opts.buckets);
  double width = (hi - lo) / buckets;
  if (o.axis == OverlayAxis::Step) width = std::max(width, 1.0);  // a step is never split
  if (!(width > 0)) width = 1.0;
  for (const auto& [line, s, t0, shift] :
       {std::tuple{&o.a, sa, ta, 0.0}, std::tuple{&o.b, sb, tb, opts.shift_b}}) {
    line->allocated = cut(s, Field::Allocated, o.axis, t0, shift, lo, width, buckets, stop);
    line->reserved = cut(s, Field::Reserved, o.axis, t0, shift, lo, width, buckets, stop);
    line->peak_allocated = peak(line->allocated);
    line->peak_reserved = peak(line->reserved);
  }
  detail::explain_gap(a.ranks, b.ranks, o);
  return o;
}

}  // namespace oomscope::live
