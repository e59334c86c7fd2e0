#pragma once
// The per-rank time series of a live session or a recording: samples, events, shape reports, the gaps
// where the connection was down, and counts of skipped lines. Not thread-safe: LiveSession locks it.
// downsample() gives min/max/last per bucket, so a chart draws a day of 10 Hz samples in a few hundred
// points without losing a spike.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/live/protocol/sink.h"

namespace oomscope::live {

struct Gap {
  std::int64_t from = 0;  // last sample before the connection dropped (or the drop time)
  std::int64_t to = 0;    // first sample after it came back; 0 while still open
  std::string reason;
};

struct RankSeries {
  std::string endpoint;
  std::optional<Hello> hello;
  std::vector<Sample> samples;  // in arrival order (t normally rising)
  std::vector<Event> events;
  std::vector<Shapes> shapes;
  std::vector<Gap> gaps;
  bool connected = false;
  std::string status;  // last connection message ("connected", "connection refused", ...)
  std::int64_t bad_lines = 0;
  std::string last_bad_line;
  std::uint16_t fields_seen = 0;  // union of the samples' presence masks
  // Memory stays bounded in a session of days: past the store's per-rank limit, the older half of the
  // samples is merged two into one (each byte figure keeps the larger value, so no peak is lost; step,
  // micro and the counters keep the later one). `thinned` counts the samples merged away, and samples up
  // to `thinned_until` (unix ns) are no longer each one the agent sent.
  std::int64_t thinned = 0;
  std::int64_t thinned_until = 0;

  const Sample* last() const { return samples.empty() ? nullptr : &samples.back(); }
  // A display name: "rank 3 (host:port)".
  std::string label(int index) const;
};

struct Bucket {
  std::int64_t t = 0;  // bucket start
  std::int64_t min = 0, max = 0, last = 0;
  std::int64_t last_t = 0;
};

class Store final : public LiveSink {
 public:
  void on_endpoint(int rank, const std::string& endpoint) override;
  void on_hello(int rank, const Hello& hello) override;
  void on_sample(int rank, const Sample& sample) override;
  void on_event(int rank, const Event& event) override;
  void on_shapes(int rank, const Shapes& shapes) override;
  void on_disconnected(int rank, std::int64_t t, const std::string& reason) override;
  void on_connected(int rank, std::int64_t t) override;
  void on_bad_line(int rank, std::int64_t t, const std::string& error) override;

  const std::vector<RankSeries>& ranks() const { return ranks_; }
  std::int64_t first_t() const;  // earliest sample over all ranks (0 when none)
  std::int64_t last_t() const;
  std::size_t sample_count() const;
  // True when the rank already holds this event (agents repeat recent events to a client that reconnects).
  bool has_event(int rank, const Event& event) const;

  // Min/max/last of `field` over [t0, t1) in `buckets` equal buckets; buckets without samples are left out.
  std::vector<Bucket> downsample(int rank, Field field, std::int64_t t0, std::int64_t t1, int buckets) const;

  // The memory all ranks' samples may take together (default 1 GiB, at 120 bytes a sample); each rank gets
  // an equal share, at least kMinSamplesPerRank samples. See RankSeries::thinned.
  static constexpr std::size_t kDefaultSampleBudgetBytes = std::size_t{1} << 30;
  static constexpr std::size_t kMinSamplesPerRank = 4096;
  void set_sample_budget(std::size_t bytes) { budget_bytes_ = bytes; }
  std::size_t samples_per_rank_limit() const;

 private:
  RankSeries& at(int rank);
  std::vector<RankSeries> ranks_;
  std::size_t budget_bytes_ = kDefaultSampleBudgetBytes;
};

// Merges the older half of `rank`'s samples two into one (see RankSeries::thinned).
void thin_older_half(RankSeries& rank);

// Headroom: how far a rank is from running out of device memory, from its latest sample:
//   capacity = the hello's total_bytes, else the sample's recommended_max (MPS);
//   used     = device_used (the whole process as the driver sees it), else driver (MPS), else reserved.
// The rank table (CLI and Live page) sorts by it so that the rank closest to OOM comes first.
struct Headroom {
  bool known = false;  // both capacity and used are known
  std::int64_t capacity = 0, used = 0;
  std::int64_t bytes() const { return capacity - used; }
  double fraction() const { return capacity > 0 ? static_cast<double>(bytes()) / capacity : 0.0; }
};

Headroom headroom(const RankSeries& rank);
// Rank indices, least headroom first; ranks without a known headroom follow, in index order.
std::vector<int> ranks_by_headroom(const Store& store);

}  // namespace oomscope::live
