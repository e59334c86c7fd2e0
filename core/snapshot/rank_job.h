#pragma once
// Whether several PyTorch snapshots are the ranks of one job, and on what evidence: rank numbers in the
// file or folder names (rank3_oom.pickle, oom_rank3.pickle, rank_3/snapshot.pickle, ...), the device ids in
// the contents, and the same program by its stacks (allocation sites in common). A file that does not
// belong is named with the reason, never merged silently.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot/snapshot.h"
#include "core/util/enum_names.h"

namespace oomscope::snapshot {

// A rank number found in a path: in the file name, else in the nearest folder name holding one.
struct RankInName {
  std::int64_t rank = 0;
  std::string where;  // the name that says it: "rank3_oom.pickle", "rank_2"
};
// "rank" (any case) followed by an optional '_' or '-' and digits, not preceded by a letter and not
// followed by a digit: rank3, rank_3, Rank-3, oom_rank3, local_rank3. Two different numbers in the file
// name: none (ambiguous). Folders are searched up to three levels, and never at or above `shared`: a folder
// every file of the job sits in says nothing about which rank a file is (a checkout named "rank25" would
// give every file rank 25).
std::optional<RankInName> rank_in_name(const std::string& path, const std::string& shared = {});
// The deepest folder that holds every one of the paths ("" when they share none, or for fewer than two).
std::string shared_folder(const std::vector<std::string>& paths);

enum class RankSource : std::uint8_t { FileName, DeviceId };
inline constexpr EnumName<RankSource> kRankSourceNames[] = {{RankSource::FileName, "file-name"},
                                                            {RankSource::DeviceId, "device-id"}};
static_assert(names_every_value(kRankSourceNames, RankSource::DeviceId));
const char* to_string(RankSource s) noexcept;

struct RankMember {
  std::size_t input = 0;  // index into the snapshots given
  std::int64_t rank = 0;
  std::string named_by;  // the name that gave the rank, or "device N"
  std::int64_t device = 0;
};

struct ExcludedFile {
  std::string path;
  std::string reason;  // one sentence
};

struct RankGrouping {
  bool is_job = false;
  RankSource source = RankSource::FileName;
  std::vector<RankMember> members;     // by rank
  std::vector<ExcludedFile> excluded;  // given but not of this job
  std::vector<std::string> evidence;   // sentences: what says these are ranks of one job
  std::string not_a_job;               // when !is_job: why
};

// Snapshots (their paths are Snapshot::path). Throws Error(InvalidArgument) naming the second file when two
// files claim the same rank by their names.
RankGrouping group_ranks(const std::vector<std::shared_ptr<const Snapshot>>& snaps);

// Allocation sites of a snapshot as the stack comparison sees them: the innermost user frame of every
// recorded stack, with the folder dropped (ranks on other hosts run the same code from other paths).
std::vector<std::string> program_sites(const Snapshot& s);

}  // namespace oomscope::snapshot
