// The per-rank time-series store (see store.h).

#include "core/live/client/store.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace oomscope::live {

std::int64_t now_unix_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string RankSeries::label(int index) const {
  const int rank = hello ? hello->rank : index;
  std::string s = "rank " + std::to_string(rank);
  if (!endpoint.empty()) s += " (" + endpoint + ")";
  return s;
}

RankSeries& Store::at(int rank) {
  if (rank < 0) rank = 0;
  if (static_cast<std::size_t>(rank) >= ranks_.size()) ranks_.resize(static_cast<std::size_t>(rank) + 1);
  return ranks_[static_cast<std::size_t>(rank)];
}

void Store::on_endpoint(int rank, const std::string& endpoint) { at(rank).endpoint = endpoint; }

void Store::on_hello(int rank, const Hello& hello) { at(rank).hello = hello; }

void Store::on_sample(int rank, const Sample& sample) {
  RankSeries& r = at(rank);
  if (!r.gaps.empty() && r.gaps.back().to == 0) r.gaps.back().to = sample.t;
  r.samples.push_back(sample);
  r.fields_seen = static_cast<std::uint16_t>(r.fields_seen | sample.present);
  if (r.samples.size() > samples_per_rank_limit()) thin_older_half(r);
}

std::size_t Store::samples_per_rank_limit() const {
  const std::size_t ranks = std::max<std::size_t>(1, ranks_.size());
  return std::max(kMinSamplesPerRank, budget_bytes_ / sizeof(Sample) / ranks);
}

namespace {

// Two neighbouring samples as one, at the first one's time.
Sample merged(const Sample& a, const Sample& b) {
  Sample m = a;
  for (std::size_t i = 0; i < kFieldCount; ++i) {
    const auto f = static_cast<Field>(i);
    if (!b.has(f)) continue;
    if (!a.has(f) || !field_is_bytes(f))
      m.set(f, b.get(f));
    else
      m.set(f, std::max(a.get(f), b.get(f)));
  }
  return m;
}

}  // namespace

void thin_older_half(RankSeries& rank) {
  auto& s = rank.samples;
  const std::size_t older = (s.size() / 2) & ~std::size_t{1};
  if (older < 2) return;
  std::size_t out = 0;
  for (std::size_t i = 0; i < older; i += 2) s[out++] = merged(s[i], s[i + 1]);
  rank.thinned_until = std::max(rank.thinned_until, s[older - 1].t);
  for (std::size_t i = older; i < s.size(); ++i) s[out++] = s[i];
  rank.thinned += static_cast<std::int64_t>(older / 2);
  s.resize(out);
}

bool Store::has_event(int rank, const Event& event) const {
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks_.size()) return false;
  const auto& events = ranks_[static_cast<std::size_t>(rank)].events;
  const std::size_t from = events.size() > 256 ? events.size() - 256 : 0;
  for (std::size_t i = from; i < events.size(); ++i)
    if (events[i].t == event.t && events[i].kind == event.kind && events[i].message == event.message)
      return true;
  return false;
}

void Store::on_event(int rank, const Event& event) {
  if (!has_event(rank, event)) at(rank).events.push_back(event);
}

void Store::on_shapes(int rank, const Shapes& shapes) { at(rank).shapes.push_back(shapes); }

void Store::on_disconnected(int rank, std::int64_t t, const std::string& reason) {
  RankSeries& r = at(rank);
  const bool was_connected = r.connected;
  r.connected = false;
  r.status = reason;
  // A gap opens when a connection that delivered samples drops; repeated failed reconnects extend it.
  if (was_connected && !r.samples.empty() && (r.gaps.empty() || r.gaps.back().to != 0))
    r.gaps.push_back(Gap{r.samples.back().t, 0, reason});
  (void)t;
}

void Store::on_connected(int rank, std::int64_t) {
  RankSeries& r = at(rank);
  r.connected = true;
  r.status = "connected";
}

void Store::on_bad_line(int rank, std::int64_t, const std::string& error) {
  RankSeries& r = at(rank);
  ++r.bad_lines;
  r.last_bad_line = error;
}

std::int64_t Store::first_t() const {
  std::int64_t t = std::numeric_limits<std::int64_t>::max();
  for (const auto& r : ranks_)
    if (!r.samples.empty()) t = std::min(t, r.samples.front().t);
  return t == std::numeric_limits<std::int64_t>::max() ? 0 : t;
}

std::int64_t Store::last_t() const {
  std::int64_t t = 0;
  for (const auto& r : ranks_)
    if (!r.samples.empty()) t = std::max(t, r.samples.back().t);
  return t;
}

std::size_t Store::sample_count() const {
  std::size_t n = 0;
  for (const auto& r : ranks_) n += r.samples.size();
  return n;
}

std::vector<Bucket> Store::downsample(int rank, Field field, std::int64_t t0, std::int64_t t1,
                                      int buckets) const {
  std::vector<Bucket> out;
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks_.size() || buckets <= 0 || t1 <= t0) return out;
  const auto& s = ranks_[static_cast<std::size_t>(rank)].samples;
  auto it = std::lower_bound(s.begin(), s.end(), t0, [](const Sample& a, std::int64_t t) { return a.t < t; });
  const double width = static_cast<double>(t1 - t0) / buckets;
  int current = -1;
  for (; it != s.end() && it->t < t1; ++it) {
    if (!it->has(field)) continue;
    const std::int64_t v = it->get(field);
    const int b = std::min(buckets - 1, static_cast<int>(static_cast<double>(it->t - t0) / width));
    if (b != current) {
      current = b;
      out.push_back(Bucket{t0 + static_cast<std::int64_t>(b * width), v, v, v, it->t});
    } else {
      Bucket& k = out.back();
      k.min = std::min(k.min, v);
      k.max = std::max(k.max, v);
      k.last = v;
      k.last_t = it->t;
    }
  }
  return out;
}

Headroom headroom(const RankSeries& rank) {
  Headroom h;
  const Sample* s = rank.last();
  if (!s) return h;
  h.capacity =
      rank.hello && rank.hello->total_bytes > 0 ? rank.hello->total_bytes : s->get(Field::RecommendedMax, 0);
  for (Field f : {Field::DeviceUsed, Field::Driver, Field::Reserved})
    if (s->has(f)) {
      h.used = s->get(f);
      h.known = h.capacity > 0;
      break;
    }
  return h;
}

std::vector<int> ranks_by_headroom(const Store& store) {
  const auto& ranks = store.ranks();
  std::vector<std::pair<Headroom, int>> rows;
  rows.reserve(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) rows.emplace_back(headroom(ranks[i]), static_cast<int>(i));
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.first.known != b.first.known) return a.first.known;
    return a.first.known && a.first.bytes() < b.first.bytes();
  });
  std::vector<int> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(r.second);
  return out;
}

}  // namespace oomscope::live
