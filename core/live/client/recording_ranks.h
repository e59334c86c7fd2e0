#pragma once
// The ranks of a live recording compared as one job, as core/snapshot/rank_comparison.h compares a job's
// per-rank snapshots: per rank the peaks, the capacity, the OOM events and the tightest headroom; the
// verdict (the rank whose OOM came first by the agents' unix times, else the one that
// came closest to its capacity, else the one with the highest reserved peak); imbalance as max / median.
// `report RECORDING` prints it (docs/report-json.md, "Ranks of a live recording").

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <stop_token>
#include <string>
#include <vector>

namespace oomscope::live {

class Store;

struct RecordingOom {                // an `oom` event
  std::int64_t t = 0;                // unix ns [read]
  std::optional<std::int64_t> step;  // [read] from the event, else the rank's last sample before it
  bool step_from_event = false;
  std::optional<std::int64_t> requested;  // "Tried to allocate N UNIT" in the message [read]
  std::string message, snapshot;          // [read]
};

struct RecordingTightest {  // the sample with the least headroom (capacity - used)
  std::int64_t t = 0;
  std::optional<std::int64_t> step;
  std::int64_t capacity = 0, used = 0;
  std::string used_field;  // "device_used", "driver" or "reserved" (store.h's Headroom order)
  std::int64_t headroom() const { return capacity - used; }
  double fraction() const { return capacity > 0 ? static_cast<double>(headroom()) / capacity : 0.0; }
};

struct RecordingRankFigures {
  int rank = 0;                   // the rank index in the recording (the Live page's "rank N")
  std::optional<int> hello_rank;  // the rank the agent's hello gave
  std::string host, backend, device;
  std::int64_t samples = 0, first_t = -1, last_t = -1;
  std::int64_t peak_allocated = 0, peak_allocated_t = -1;  // max of allocated and peak_allocated [derived]
  std::int64_t peak_reserved = 0, peak_reserved_t = -1;    // max of reserved [derived]
  bool has_allocated = false, has_reserved = false;
  std::optional<std::int64_t> peak_driver;  // max of driver (MPS) [derived]
  std::optional<std::int64_t> capacity;     // the hello's total_bytes, else the largest recommended_max
  std::string capacity_from;                // "hello total_bytes" or "recommended_max"
  std::optional<RecordingTightest> tightest;
  std::vector<RecordingOom> ooms;
};

struct RecordingImbalance {  // max / median over the ranks with samples
  std::string name;
  std::int64_t max_bytes = 0;
  int max_rank = 0;
  double median = 0;
  std::optional<double> ratio;  // none when the median is 0
};

struct RecordingVerdict {
  int rank = 0;
  std::string kind;  // "oom", "closest-to-capacity", "highest-reserved-peak" (rank_comparison.h's names)
  std::vector<std::string> sentences;
  std::vector<int> oom_ranks;  // every rank with an oom event, earliest first
  // With several OOM ranks: true when their hellos name one host (one clock stamped every time), false when
  // they name several (the order holds as far as those clocks agree); none with fewer than two.
  std::optional<bool> clocks_comparable;
};

struct RecordingComparison {
  std::string path;
  std::int64_t t0 = 0;                      // the first sample of any rank: times are printed from it
  std::vector<RecordingRankFigures> ranks;  // by rank index, ranks with samples only
  RecordingVerdict verdict;
  // The same verdict with every rank named by its hello rank (rank, oom_ranks and the sentences), when
  // every rank has a hello rank of its own; none otherwise. A diff that matches two runs' ranks by hello
  // rank prints this one, so its verdict names the ranks its table does.
  std::optional<RecordingVerdict> verdict_by_hello_rank;
  RecordingImbalance peak_allocated, peak_reserved;
  std::string truncated_note;  // set when the recording was cut short (replay.h)
  std::string thinned_note;    // compare_store_ranks: set when the store merged older samples (store.h)
};

// Replays the recording and compares its ranks. Throws oomscope::Error naming the file when it is not a
// recording, is damaged, or holds no sample of any rank.
RecordingComparison compare_recording_ranks(const std::string& path, const std::stop_token& stop = {});

// True when every rank has a hello rank and no two share one (then ranks can be named and matched by it).
bool hello_ranks_unique(const std::vector<RecordingRankFigures>& ranks);

// The same comparison of what a live session's store holds (the Live page, while attached): the store's
// hellos, samples and events go through the code the replay feeds, so a store that holds a recording's
// records compares exactly as the recording does. `subject` stands for the path in the result and in the
// error. A rank's `samples` counts those the store merged away too. Throws oomscope::Error (Empty) naming
// `subject` when no rank has a sample. The caller holds the session's lock.
RecordingComparison compare_store_ranks(const Store& store, const std::string& subject);

// "Tried to allocate 2.50 GiB" (PyTorch's wording) in an OOM message, in bytes; nullopt when absent.
std::optional<std::int64_t> requested_bytes_in(const std::string& message);

void write_recording_comparison_text(std::ostream& o, const RecordingComparison& c);
// The pieces of that text the Live page shows too, worded once: "996 MiB (6.1%, reserved) at 1.900 s";
// "at 2.000 s, step 19 (its last sample's), request 2.50 GiB, snapshot PATH"; "imbalance [derived]: ...".
// Times are seconds after t0.
std::string recording_tightest_text(const RecordingTightest& t, std::int64_t t0);
std::string recording_oom_text(const RecordingOom& oom, std::int64_t t0);
std::string recording_imbalance_text(const RecordingComparison& c);
nlohmann::json recording_comparison_json(const RecordingComparison& c);

}  // namespace oomscope::live
