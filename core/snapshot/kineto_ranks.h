#pragma once
// The per-rank Kineto traces of one job (torch.profiler with profile_memory=True on every rank) read as one
// job: which traces are ranks, by their distributedInfo rank or a rank number in the file name; per rank
// the device's peaks from the [memory] events, the capacity from deviceProperties' totalGlobalMem, the
// [OutOfMemory] events; the verdict (which rank ran out first, else which came closest to its capacity) and
// the imbalance of the peaks. A Kineto [memory] event carries no stack and no category, so this comparison
// has no allocation sites or categories: the text and the JSON say so.

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/snapshot/kineto.h"
#include "core/snapshot/rank_comparison.h"

namespace oomscope::snapshot {

enum class KinetoRankSource : std::uint8_t { DistributedInfo, FileName };
inline constexpr EnumName<KinetoRankSource> kKinetoRankSourceNames[] = {
    {KinetoRankSource::DistributedInfo, "distributed-info"}, {KinetoRankSource::FileName, "file-name"}};
static_assert(names_every_value(kKinetoRankSourceNames, KinetoRankSource::FileName));

enum class KinetoCapacitySource : std::uint8_t { None, Given, DeviceProperties };
inline constexpr EnumName<KinetoCapacitySource> kKinetoCapacitySourceNames[] = {
    {KinetoCapacitySource::None, ""},
    {KinetoCapacitySource::Given, "--capacity"},
    {KinetoCapacitySource::DeviceProperties, "deviceProperties.totalGlobalMem"}};
static_assert(names_every_value(kKinetoCapacitySourceNames, KinetoCapacitySource::DeviceProperties));

struct KinetoRank {
  std::int64_t rank = 0;
  std::string path, named_by;    // named_by: "distributedInfo.rank" or the file name that says it
  std::int64_t world_size = -1;  // distributedInfo.world_size [read]; -1 absent
  std::string device;            // "CUDA 1"
  std::int64_t device_id = -1;
  std::size_t memory_events = 0;
  std::int64_t peak_allocated = 0;  // max Total Allocated [read], or baseline + running Σ Bytes [derived]
  bool peak_allocated_read = false;
  double peak_ts_us = 0;
  std::optional<std::int64_t> peak_reserved;  // max Total Reserved [read]; none in the old schema
  std::optional<std::int64_t> capacity;
  KinetoCapacitySource capacity_source = KinetoCapacitySource::None;
  std::vector<KinetoOom> ooms;  // the device's [OutOfMemory] events [read], in time order
  double first_ts_us = 0, last_ts_us = 0;
  std::vector<std::int64_t> steps;  // ProfilerStep numbers the trace carries
};

struct KinetoRankJob {
  bool is_job = false;
  std::string not_a_job;  // when !is_job: why
  KinetoRankSource source = KinetoRankSource::DistributedInfo;
  std::vector<std::string> evidence;   // sentences: what says these are ranks of one job
  std::vector<ExcludedFile> excluded;  // given but not of this job
  std::vector<KinetoRank> ranks;       // by rank
  RankVerdict verdict;                 // its categories and sites stay empty: the format has none
  Imbalance peak_allocated, peak_reserved;
};

// The traces (read_kineto_trace; their paths are KinetoTrace::path). capacity: the user's figure for every
// rank's device (--capacity), else deviceProperties' totalGlobalMem of the rank's device. Throws
// Error(InvalidArgument) naming the second file when two traces claim the same rank.
KinetoRankJob compare_kineto_ranks(const std::vector<std::shared_ptr<const KinetoTrace>>& traces,
                                   std::optional<std::int64_t> capacity);

// The device a rank's figures come from: the accelerator with the most [memory] events (the lowest id on a
// tie), else the first device; null when the trace has none.
const KinetoDevice* rank_device(const KinetoTrace& t);

// Text and JSON (docs/report-json.md, "Ranks of one job: Kineto traces").
void write_kineto_ranks_text(std::ostream& o, const KinetoRankJob& j);
nlohmann::json kineto_ranks_json(const KinetoRankJob& j);

}  // namespace oomscope::snapshot
