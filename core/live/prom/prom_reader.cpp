#include "core/live/prom/prom_reader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <set>
#include <thread>

#include "core/live/prom/prom_metrics.h"
#include "core/util/error.h"

namespace oomscope::live {

using namespace prom_detail;

namespace {

// DCGM's framebuffer series on the ranks' hosts (`DCGM_FI_DEV_FB_USED{Hostname=~"a|b"}`); "" when no rank
// names a host.
std::string dcgm_query(const std::vector<PromRankInfo>& ranks) {
  std::set<std::string> hosts;
  for (const auto& i : ranks)
    if (!i.host.empty()) hosts.insert(i.host);
  if (hosts.empty()) return {};
  std::string re;
  for (const auto& h : hosts) re.append(re.empty() ? "" : "|").append(regex_escape(h));
  return std::string(kDcgmUsed) + "{Hostname=~\"" + re + "\"}";
}

// A DCGM series is a rank's when it names the rank's host and gpu.
bool is_ranks_dcgm(const PromRankInfo& rank, const PromSeries& s) {
  return rank.host == s.label("Hostname") && rank.gpu >= 0 && rank.gpu == to_int(s.label("gpu"));
}

}  // namespace

PromReader::PromReader(std::string server, PromOptions options, LiveSink& sink)
    : server_(server),
      options_(std::move(options)),
      sink_(sink),
      api_(std::move(server), options_.timeout_ms) {
  options_.selector = normalise_selector(options_.selector);
  for (int i = 0; i < kHistoryConnections - 1; ++i)
    pool_.push_back(std::make_unique<PromApi>(server_, options_.timeout_ms));
}

void PromReader::cancel() {
  api_.cancel();
  for (auto& a : pool_) a->cancel();
}

void PromReader::set_stop_token(const std::stop_token& stop) {
  api_.set_stop_token(stop);
  for (auto& a : pool_) a->set_stop_token(stop);
}

std::uint64_t PromReader::requests() const {
  std::uint64_t n = api_.requests();
  for (const auto& a : pool_) n += a->requests();
  return n;
}

std::uint64_t PromReader::bytes_read() const {
  std::uint64_t n = api_.bytes_read();
  for (const auto& a : pool_) n += a->bytes_read();
  return n;
}

std::string PromReader::matchers(const std::string& extra) const {
  if (options_.selector.empty()) return "{" + extra + "}";
  return "{" + (extra.empty() ? options_.selector : extra + "," + options_.selector) + "}";
}

std::string PromReader::all_metrics_regex() const {
  std::string re = "__name__=~\"";
  for (const auto& f : kFieldMetrics) re.append(f.family.name).append("|");
  re.append(kCapacityMetric.name).append("|").append(kShapesMetric.name).append("|");
  re.append(kRestartsMetric.name).append("|").append(kAgentInfoMetric.name).append("\"");
  return re;
}

int PromReader::rank_for(const PromSeries& s) {
  const std::string& rank = s.label("rank");
  std::string key = s.label("job") + '\x1f' + s.label("host") + '\x1f' + rank;
  if (rank.empty()) key += '\x1f' + s.label("instance");
  auto it = by_key_.find(key);
  if (it != by_key_.end()) return it->second;
  const int index = static_cast<int>(info_.size());
  by_key_.emplace(key, index);
  PromRankInfo info;
  info.job = s.label("job");
  info.instance = s.label("instance");
  info.host = s.label("host");
  info.device = s.label("device");
  info.rank = to_int(rank);
  info.local_rank = to_int(s.label("local_rank"));
  info.gpu = device_index(info.device);
  if (info.gpu < 0) info.gpu = info.local_rank;
  info_.push_back(info);
  state_.emplace_back();
  std::string where = info.instance.empty() ? info.host : info.instance;
  sink_.on_endpoint(index, where.empty() ? server_ : where);
  if (discovered_) send_hello(index);
  return index;
}

void PromReader::absorb_info(const PromSeries& s, int index) {
  PromRankInfo& info = info_[static_cast<std::size_t>(index)];
  bool changed = false;
  for (auto [field, name] : {std::pair{&info.stats_endpoint, "stats_endpoint"},
                             std::pair{&info.version, "version"}, std::pair{&info.backend, "backend"}}) {
    const std::string& v = s.label(name);
    if (!v.empty() && *field != v) {
      *field = v;
      changed = true;
    }
  }
  if (info.instance.empty() && !s.label("instance").empty()) info.instance = s.label("instance");
  if (changed && !info.stats_endpoint.empty()) sink_.on_endpoint(index, info.stats_endpoint);
  if (changed) send_hello(index);
}

void PromReader::send_hello(int index) {
  const PromRankInfo& info = info_[static_cast<std::size_t>(index)];
  Hello h;
  h.host = info.host.empty() ? info.instance : info.host;
  h.rank = info.rank >= 0 ? info.rank : index;
  h.world_size = static_cast<int>(info_.size());
  h.backend = info.backend;
  h.device = info.device;
  h.total_bytes = state_[static_cast<std::size_t>(index)].capacity;
  h.framework = "via Prometheus" + (info.version.empty() ? std::string() : ", agent " + info.version);
  state_[static_cast<std::size_t>(index)].hello_sent = true;
  sink_.on_hello(index, h);
}

void PromReader::discover(std::int64_t now) {
  const std::int64_t from = now - std::max<std::int64_t>(options_.since_s, 60) * 1000;
  auto found = api_.series(matchers(all_metrics_regex()), from, now);
  std::sort(found.begin(), found.end(), [](const PromSeries& a, const PromSeries& b) {
    auto key = [](const PromSeries& s) {
      return std::tuple(s.label("job"), to_int(s.label("rank"), 1 << 30), s.label("host"),
                        s.label("instance"));
    };
    return key(a) < key(b);
  });
  for (const auto& s : found) {
    const int index = rank_for(s);
    if (s.label("__name__") == kAgentInfoMetric.name) absorb_info(s, index);
  }
  discovered_ = true;
  for (std::size_t r = 0; r < info_.size(); ++r) send_hello(static_cast<int>(r));
  if (info_.empty())
    throw Error(ErrorKind::NotFound, server_,
                "no oomscope series match " + matchers({}) + " in the last " +
                    std::to_string(std::max<std::int64_t>(options_.since_s, 60)) +
                    " s (check the selector, and that Prometheus scrapes the agents' /metrics)");
}

void PromReader::set_connected(int index, bool up, std::int64_t t_ms, const std::string& why) {
  State& st = state_[static_cast<std::size_t>(index)];
  info_[static_cast<std::size_t>(index)].up = up;
  if (st.connected == (up ? 1 : 0)) return;  // report changes only
  st.connected = up ? 1 : 0;
  if (up)
    sink_.on_connected(index, t_ms * 1'000'000);
  else
    sink_.on_disconnected(index, t_ms * 1'000'000, why);
}

void PromReader::poll(std::int64_t now) {
  const std::int64_t since = last_poll_ms_ ? now - last_poll_ms_ : options_.poll_ms;
  const std::int64_t window_s =
      std::clamp<std::int64_t>((since + 999) / 1000 + 1, 3, std::max<std::int64_t>(options_.since_s, 60));
  auto raw = api_.query(matchers(all_metrics_regex()) + "[" + std::to_string(window_s) + "s]", now);
  last_poll_ms_ = now;

  // Group by rank, then by scrape time: one scrape's series share its timestamp.
  std::vector<std::map<std::int64_t, Sample>> fresh(info_.size());
  std::vector<std::int64_t> newest(info_.size(), 0);
  for (const auto& s : raw) {
    const int r = rank_for(s);
    if (fresh.size() <= static_cast<std::size_t>(r)) {
      fresh.resize(static_cast<std::size_t>(r) + 1);
      newest.resize(static_cast<std::size_t>(r) + 1, 0);
    }
    const std::string& name = s.label("__name__");
    if (name == kAgentInfoMetric.name) {
      absorb_info(s, r);
      continue;
    }
    const int m = metric_slot(name);
    State& st = state_[static_cast<std::size_t>(r)];
    for (const auto& [t, v] : s.points) {
      newest[static_cast<std::size_t>(r)] = std::max(newest[static_cast<std::size_t>(r)], t);
      if (t <= st.last_t) continue;
      Sample& x = fresh[static_cast<std::size_t>(r)][t];
      if (m >= 0) {
        x.set(kFieldMetrics[m].field, as_bytes(v));
      } else if (m == kExtraCapacity && as_bytes(v) != st.capacity) {
        st.capacity = as_bytes(v);
        send_hello(r);
      } else if (m == kExtraShapes && v != st.shapes) {
        st.shapes = v;
        sink_.on_shapes(r, Shapes{t * 1'000'000, as_bytes(v), {}, {}});
      } else if (m == kExtraRestarts) {
        if (st.restarts >= 0 && v > st.restarts)
          sink_.on_event(r,
                         Event{t * 1'000'000,
                               "restart",
                               std::string(kRestartsMetric.name) + " rose to " + std::to_string(as_bytes(v)),
                               {},
                               {}});
        st.restarts = v;
      }
    }
  }
  // Observed scrape interval: the spacing of one rank's newest samples.
  for (const auto& f : fresh)
    if (f.size() >= 2) {
      scrape_ms_ = std::prev(f.end())->first - std::prev(f.end(), 2)->first;
      break;
    }

  // DCGM's framebuffer figure, the latest value per host and gpu.
  if (const std::string query = dcgm_query(info_); options_.dcgm && !query.empty()) {
    for (const auto& s : api_.query(query, now))
      for (std::size_t r = 0; r < info_.size(); ++r)
        if (is_ranks_dcgm(info_[r], s) && !s.points.empty()) {
          state_[r].dcgm_mib = s.points.back().second;
          state_[r].dcgm_t = s.points.back().first;
        }
  }

  // The targets' `up`, by instance.
  std::map<std::string, double> up;
  for (const auto& s : api_.query("up" + matchers({}), now))
    if (!s.points.empty()) up[s.label("instance")] = s.points.back().second;

  const std::int64_t stale = options_.stale_after_ms > 0
                                 ? options_.stale_after_ms
                                 : std::max<std::int64_t>(5000, 3 * std::max(scrape_ms_, std::int64_t{1000}));
  for (std::size_t r = 0; r < info_.size(); ++r) {
    State& st = state_[r];
    const int rank = static_cast<int>(r);
    if (r < fresh.size())
      for (auto& [t, x] : fresh[r]) {
        if (!x.present) continue;
        if (st.dcgm_mib >= 0) x.set(Field::DeviceUsed, as_bytes(st.dcgm_mib * kMiB));
        x.t = t * 1'000'000;
        if (st.connected != 1) set_connected(rank, true, t, {});
        sink_.on_sample(rank, x);
        st.last_t = t;
      }
    const auto u = up.find(info_[r].instance);
    if (u != up.end() && u->second == 0)
      set_connected(rank, false, now,
                    "Prometheus cannot scrape its target " + info_[r].instance + " (up is 0)");
    else if (st.last_t == 0)
      set_connected(rank, false, now, "no sample of its figures in Prometheus yet");
    else if (now - st.last_t > stale)
      set_connected(rank, false, now,
                    "no new sample in Prometheus for " + std::to_string((now - st.last_t) / 1000) +
                        " s (the series went stale)");
    else if (st.connected != 1)
      set_connected(rank, true, now, {});
  }
}

// The history read at start.
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
  if (const std::string query = dcgm_query(info_); options_.dcgm && !query.empty()) {
    fb = api_.query_range(query, start, end, step_ms_);
    for (const auto& s : fb)
      for (std::size_t r = 0; r < info_.size(); ++r)
        if (is_ranks_dcgm(info_[r], s)) dcgm[r] = &s;
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
