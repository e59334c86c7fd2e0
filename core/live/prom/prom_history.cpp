// Prometheus as a live source: the history read at start (see prom_source.h).

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <set>

#include "core/live/prom/prom_metrics.h"
#include "core/live/prom/prom_source.h"
#include "core/util/error.h"

namespace oomscope::live {

using namespace prom_detail;

void PromReader::read_history(std::int64_t now) {
  if (options_.since_s <= 0) return;
  const std::int64_t span = options_.since_s * 1000;
  step_ms_ = std::max<std::int64_t>(1000, (span + options_.max_points - 1) / options_.max_points);
  step_ms_ = (step_ms_ + 999) / 1000 * 1000;
  const std::int64_t end = now / step_ms_ * step_ms_, start = end - span;
  const std::size_t points = static_cast<std::size_t>(span / step_ms_) + 1;

  std::vector<std::string> names;
  for (const auto& f : kFieldMetrics) names.emplace_back(f.family.name);
  names.emplace_back(kCapacityMetric.name);
  names.emplace_back(kShapesMetric.name);
  names.emplace_back(kRestartsMetric.name);
  std::vector<std::vector<PromSeries>> results(names.size());
  {
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(pool_.size() + 1);
    auto work = [&](PromApi& api, std::exception_ptr& error) {
      try {
        for (std::size_t m; (m = next.fetch_add(1)) < names.size();)
          results[m] = api.query_range(names[m] + matchers({}), start, end, step_ms_);
      } catch (...) {
        error = std::current_exception();
        next.store(names.size());  // the others stop after their current query
      }
    };
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < pool_.size(); ++i)
      threads.emplace_back([&, i] { work(*pool_[i], errors[i + 1]); });
    work(api_, errors[0]);
    threads.clear();  // joins
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

  // DCGM's framebuffer figure for the ranks' hosts, matched by Hostname and gpu.
  std::vector<const PromSeries*> dcgm(info_.size(), nullptr);
  std::vector<PromSeries> fb;
  std::set<std::string> hosts;
  for (const auto& i : info_)
    if (!i.host.empty()) hosts.insert(i.host);
  if (options_.dcgm && !hosts.empty()) {
    std::string re;
    for (const auto& h : hosts) re.append(re.empty() ? "" : "|").append(regex_escape(h));
    fb = api_.query_range(std::string(kDcgmUsed) + "{Hostname=~\"" + re + "\"}", start, end, step_ms_);
    for (const auto& s : fb)
      for (std::size_t r = 0; r < info_.size(); ++r)
        if (info_[r].host == s.label("Hostname") && info_[r].gpu >= 0 &&
            info_[r].gpu == to_int(s.label("gpu")))
          dcgm[r] = &s;
  }

  // Per rank: which series of each metric (indices into results).
  std::vector<std::vector<std::pair<int, const PromSeries*>>> per_rank(info_.size());
  for (std::size_t m = 0; m < names.size(); ++m)
    for (const auto& s : results[m]) {
      const int r = rank_for(s);
      if (per_rank.size() <= static_cast<std::size_t>(r)) per_rank.resize(static_cast<std::size_t>(r) + 1);
      per_rank[static_cast<std::size_t>(r)].emplace_back(metric_slot(names[m]), &s);
    }
  dcgm.resize(info_.size(), nullptr);

  std::vector<Sample> grid(points);
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    for (std::size_t i = 0; i < points; ++i)
      grid[i] = Sample{start + static_cast<std::int64_t>(i) * step_ms_, 0, {}};
    State& st = state_[r];
    const int rank = static_cast<int>(r);
    auto slot = [&](std::int64_t t) -> Sample* {
      const std::int64_t i = (t - start) / step_ms_;
      return i >= 0 && static_cast<std::size_t>(i) < points ? &grid[static_cast<std::size_t>(i)] : nullptr;
    };
    std::vector<std::pair<std::int64_t, double>> shapes, restarts;
    for (const auto& [m, s] : per_rank[r]) {
      if (m >= 0) {
        for (const auto& [t, v] : s->points)
          if (Sample* x = slot(t)) x->set(kFieldMetrics[m].field, as_bytes(v));
      } else if (m == kExtraCapacity && !s->points.empty()) {
        st.capacity = as_bytes(s->points.back().second);
      } else if (m == kExtraShapes) {
        shapes = s->points;
      } else if (m == kExtraRestarts) {
        restarts = s->points;
      }
    }
    if (const PromSeries* d = dcgm[r]) {
      for (const auto& [t, v] : d->points)
        if (Sample* x = slot(t)) x->set(Field::DeviceUsed, as_bytes(v * kMiB));
      if (!d->points.empty()) st.dcgm_mib = d->points.back().second, st.dcgm_t = d->points.back().first;
    }
    if (st.capacity) send_hello(rank);
    std::size_t si = 0, ri = 0;
    for (Sample& x : grid) {
      if (!x.present) continue;
      const std::int64_t t = x.t;
      x.t = t * 1'000'000;
      sink_.on_sample(rank, x);
      st.last_t = t;
      for (; si < shapes.size() && shapes[si].first <= t; ++si)
        if (shapes[si].second != st.shapes) {
          st.shapes = shapes[si].second;
          sink_.on_shapes(rank, Shapes{x.t, static_cast<std::int64_t>(st.shapes), {}, {}});
        }
      for (; ri < restarts.size() && restarts[ri].first <= t; ++ri) {
        if (st.restarts >= 0 && restarts[ri].second > st.restarts)
          sink_.on_event(rank, Event{x.t,
                                     "restart",
                                     std::string(kRestartsMetric.name) + " rose to " +
                                         std::to_string(as_bytes(restarts[ri].second)),
                                     {},
                                     {}});
        st.restarts = restarts[ri].second;
      }
    }
  }
  last_poll_ms_ = end;
}

}  // namespace oomscope::live
