// Bounded point sets for drawing the plan timeline at any zoom: min/max per time bucket (plan_timeline.h).

#include <algorithm>

#include "core/analysis/timeline/plan_timeline.h"

namespace oomscope::analysis {

namespace {

// Keeps, per bucket of [t0, t1], the lowest and the highest point in time order; `keep` (when >= 0) is a
// position kept whatever its bucket.
class BucketKeeper {
 public:
  BucketKeeper(std::int64_t t0, std::int64_t t1, std::size_t buckets)
      : t0_(t0),
        width_(std::max<std::int64_t>(1, (t1 - t0) / std::int64_t(std::max<std::size_t>(buckets, 1)) + 1)) {}

  void add(const TimeBytes& p, bool keep) {
    const std::int64_t b = (p.time_ps - t0_) / width_;
    if (b != bucket_) flush();
    bucket_ = b;
    if (!have_) {
      lo_ = hi_ = p;
      have_ = true;
    } else {
      if (p.bytes < lo_.bytes) lo_ = p;
      if (p.bytes > hi_.bytes) hi_ = p;
    }
    if (keep) kept_.push_back(p);
  }
  std::int64_t bucket_of(std::int64_t time_ps) const { return (time_ps - t0_) / width_; }
  std::vector<TimeBytes> finish() {
    flush();
    std::sort(out_.begin(), out_.end(), [](const TimeBytes& a, const TimeBytes& b) {
      return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.position < b.position;
    });
    out_.erase(std::unique(out_.begin(), out_.end()), out_.end());
    return std::move(out_);
  }

 private:
  void flush() {
    if (!have_) return;
    const bool lo_first =
        lo_.time_ps < hi_.time_ps || (lo_.time_ps == hi_.time_ps && lo_.position <= hi_.position);
    out_.push_back(lo_first ? lo_ : hi_);
    if (!(lo_ == hi_)) out_.push_back(lo_first ? hi_ : lo_);
    for (const TimeBytes& k : kept_) out_.push_back(k);
    kept_.clear();
    have_ = false;
  }
  std::int64_t t0_, width_;
  std::int64_t bucket_ = -1;
  bool have_ = false;
  TimeBytes lo_, hi_;
  std::vector<TimeBytes> kept_;
  std::vector<TimeBytes> out_;
};

}  // namespace

std::vector<TimeBytes> planned_points(const ExecutionTimeline& x, const MemoryCurve& curve,
                                      std::int64_t peak_position, std::int64_t t0, std::int64_t t1,
                                      std::size_t buckets) {
  if (curve.size() == 0 || x.anchors.empty() || t1 < t0) return {};
  const std::int64_t first_time = x.anchors.front().time_ps, last_time = x.anchors.back().time_ps;
  if (last_time < t0 || first_time > t1) return {};
  const std::int64_t p0 = x.position_at(std::max(t0, first_time));
  const std::int64_t p1 = x.position_at(std::min(t1, last_time));
  BucketKeeper keeper(t0, t1, buckets);
  for (std::int64_t p = p0; p <= p1 && p < std::int64_t(curve.size()); ++p)
    keeper.add({std::max(x.time_at(p), t0), curve.total_at(std::size_t(p)), p}, p == peak_position);
  return keeper.finish();
}

std::vector<TimeBytes> runtime_points(const PlanTimeline& timeline,
                                      std::span<const capture::MemoryEvent> memory, std::int64_t t0,
                                      std::int64_t t1, std::size_t buckets) {
  const auto& idx = timeline.allocator_events;
  if (idx.empty() || t1 < t0) return {};
  auto it = std::lower_bound(idx.begin(), idx.end(), t0,
                             [&](std::uint32_t i, std::int64_t t) { return memory[i].time_ps < t; });
  BucketKeeper keeper(t0, t1, buckets);
  if (it != idx.begin()) keeper.add({t0, memory[*(it - 1)].bytes_in_use, -1}, true);
  const auto end = std::upper_bound(it, idx.end(), t1,
                                    [&](std::int64_t t, std::uint32_t i) { return t < memory[i].time_ps; });
  constexpr std::size_t block = PlanTimeline::kAllocatorBlock;
  const std::size_t blocks = (idx.size() + block - 1) / block;
  const bool summarized =
      timeline.allocator_block_low.size() == blocks && timeline.allocator_block_high.size() == blocks;
  const auto add = [&](std::size_t k) {
    keeper.add({memory[idx[k]].time_ps, memory[idx[k]].bytes_in_use, -1}, false);
  };
  // A whole block inside one bucket leaves that bucket's lowest and highest as its own first lowest and
  // first highest would: the keeper sees just those two, in time order.
  for (std::size_t k = std::size_t(it - idx.begin()), e = std::size_t(end - idx.begin()); k < e;) {
    if (summarized && k % block == 0 && k + block <= e &&
        keeper.bucket_of(memory[idx[k]].time_ps) == keeper.bucket_of(memory[idx[k + block - 1]].time_ps)) {
      const std::size_t lo = timeline.allocator_block_low[k / block];
      const std::size_t hi = timeline.allocator_block_high[k / block];
      add(std::min(lo, hi));
      if (lo != hi) add(std::max(lo, hi));
      k += block;
    } else {
      add(k++);
    }
  }
  return keeper.finish();
}

void summarize_allocator_events(PlanTimeline& timeline, std::span<const capture::MemoryEvent> memory) {
  const auto& idx = timeline.allocator_events;
  constexpr std::size_t block = PlanTimeline::kAllocatorBlock;
  timeline.allocator_block_low.clear();
  timeline.allocator_block_high.clear();
  for (std::size_t b = 0; b < idx.size(); b += block) {
    std::size_t lo = b, hi = b;
    for (std::size_t k = b + 1; k < std::min(b + block, idx.size()); ++k) {
      if (memory[idx[k]].bytes_in_use < memory[idx[lo]].bytes_in_use) lo = k;
      if (memory[idx[k]].bytes_in_use > memory[idx[hi]].bytes_in_use) hi = k;
    }
    timeline.allocator_block_low.push_back(std::uint32_t(lo));
    timeline.allocator_block_high.push_back(std::uint32_t(hi));
  }
}

std::vector<TimeSpan> visible_spans(std::span<const TimeSpan> spans, std::int64_t t0, std::int64_t t1,
                                    std::size_t pixels) {
  std::vector<TimeSpan> out;
  if (t1 <= t0) return out;
  const std::int64_t pixel =
      std::max<std::int64_t>(1, (t1 - t0) / std::int64_t(std::max<std::size_t>(pixels, 1)));
  std::vector<TimeSpan> in;
  for (const TimeSpan& s : spans)
    if (s.end_ps >= t0 && s.start_ps <= t1)
      in.push_back({std::max(s.start_ps, t0), std::min(std::max(s.end_ps, s.start_ps + pixel), t1)});
  std::sort(in.begin(), in.end(),
            [](const TimeSpan& a, const TimeSpan& b) { return a.start_ps < b.start_ps; });
  for (const TimeSpan& s : in) {
    if (!out.empty() && s.start_ps <= out.back().end_ps + pixel)
      out.back().end_ps = std::max(out.back().end_ps, s.end_ps);
    else
      out.push_back(s);
  }
  return out;
}

namespace {

// One marker per column: the highest of the peaks that fall in it.
class ColumnPeaks {
 public:
  ColumnPeaks(std::int64_t t0, std::int64_t t1, std::size_t columns)
      : t0_(t0), t1_(t1), columns_(std::max<std::size_t>(columns, 1)), best_(columns_) {}

  void add(std::size_t execution, std::int64_t time_ps, std::int64_t bytes) {
    const auto column = std::min(columns_ - 1, std::size_t(double(std::clamp(time_ps, t0_, t1_) - t0_) /
                                                           double(t1_ - t0_) * double(columns_)));
    PeakMarker& best = best_[column];
    if (best.bytes < 0) {
      best = {execution, time_ps, bytes};
      return;
    }
    thinned_ = true;
    if (bytes > best.bytes) best = {execution, time_ps, bytes};
  }
  std::vector<PeakMarker> finish() const {
    std::vector<PeakMarker> out;
    for (const PeakMarker& m : best_)
      if (m.bytes >= 0) out.push_back(m);
    return out;
  }
  bool thinned() const { return thinned_; }

 private:
  std::int64_t t0_, t1_;
  std::size_t columns_;
  std::vector<PeakMarker> best_;  // bytes < 0: no peak in the column
  bool thinned_ = false;
};

}  // namespace

PeakMarkers peak_markers(std::span<const ExecutionTimeline> executions, std::int64_t t0, std::int64_t t1,
                         std::size_t columns) {
  PeakMarkers out;
  if (t1 <= t0) return out;
  ColumnPeaks planned(t0, t1, columns), runtime(t0, t1, columns);
  for (std::size_t i = 0; i < executions.size(); ++i) {
    const ExecutionTimeline& x = executions[i];
    if (x.end_ps < t0 || x.start_ps > t1) continue;
    ++out.executions;
    planned.add(i, x.planned_peak_time_ps, x.planned_peak_bytes);
    if (x.allocator) runtime.add(i, x.runtime_peak_time_ps, x.runtime_peak_bytes);
  }
  out.thinned = planned.thinned() || runtime.thinned();
  out.planned = planned.finish();
  out.runtime = runtime.finish();
  return out;
}

}  // namespace oomscope::analysis
