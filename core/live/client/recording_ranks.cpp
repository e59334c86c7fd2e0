// A live recording's ranks compared as one job (recording_ranks.h).

#include "core/live/client/recording_ranks.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <string_view>

#include "core/live/client/detail/rank_collector.h"
#include "core/live/client/replay.h"
#include "core/live/client/store.h"

namespace oomscope::live {

std::optional<std::int64_t> requested_bytes_in(const std::string& message) {
  static constexpr std::string_view kTried = "Tried to allocate ";
  const std::size_t at = message.find(kTried);
  if (at == std::string::npos) return std::nullopt;
  const char* p = message.c_str() + at + kTried.size();
  char* end = nullptr;
  const double n = std::strtod(p, &end);
  if (end == p || !(n >= 0)) return std::nullopt;
  while (*end == ' ') ++end;
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0},
      {"KiB", 1024.0},          {"bytes", 1.0},        {"B", 1.0}};
  for (const auto& [unit, scale] : kUnits)
    if (std::string_view(end).starts_with(unit)) return static_cast<std::int64_t>(std::llround(n * scale));
  return std::nullopt;
}

bool hello_ranks_unique(const std::vector<RecordingRankFigures>& ranks) {
  std::set<int> seen;
  for (const RecordingRankFigures& f : ranks)
    if (!f.hello_rank || !seen.insert(*f.hello_rank).second) return false;
  return true;
}

RecordingComparison compare_recording_ranks(const std::string& path, const std::stop_token& stop) {
  detail::RankCollector collector;
  const ReplayInfo info = replay_recording(path, collector, stop);
  RecordingComparison c = detail::finish_comparison(path, "the recording", std::move(collector).take());
  if (info.truncated) c.truncated_note = info.note;
  return c;
}

RecordingComparison compare_store_ranks(const Store& store, const std::string& subject) {
  detail::RankCollector collector;
  const std::vector<RankSeries>& ranks = store.ranks();
  std::int64_t thinned = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankSeries& r = ranks[i];
    const int rank = static_cast<int>(i);
    if (r.hello) collector.on_hello(rank, *r.hello);
    // The store keeps samples and events apart, each in arrival order; an event goes after the samples
    // stamped up to its time, as an agent sends them.
    auto event = r.events.begin();
    for (const Sample& s : r.samples) {
      for (; event != r.events.end() && event->t < s.t; ++event) collector.on_event(rank, *event);
      collector.on_sample(rank, s);
    }
    for (; event != r.events.end(); ++event) collector.on_event(rank, *event);
    thinned += r.thinned;
  }
  std::vector<RecordingRankFigures> figures = std::move(collector).take();
  for (RecordingRankFigures& f : figures) f.samples += ranks[static_cast<std::size_t>(f.rank)].thinned;
  RecordingComparison c = detail::finish_comparison(subject, "the session", std::move(figures));
  if (thinned > 0)
    c.thinned_note = std::to_string(thinned) +
                     " older samples were merged two into one to bound memory (each byte figure keeps the "
                     "larger value, so the peaks are exact; the tightest headroom may be read from a merged "
                     "sample)";
  return c;
}

}  // namespace oomscope::live
