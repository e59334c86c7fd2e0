#pragma once
// The settings of PyTorch's CUDA caching allocator that change where memory goes
// (PYTORCH_CUDA_ALLOC_CONF; docs/allocator-model.md says which PyTorch version's rule each follows), read
// from a snapshot's `allocator_settings` or from "key:value" text as the user types it.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot/snapshot.h"

namespace oomscope::allocator {

inline constexpr std::uint64_t kMiB = 1ull << 20;
inline constexpr std::uint64_t kMinBlockSize = 512;         // every block is a multiple of 512 B
inline constexpr std::uint64_t kSmallSize = 1 * kMiB;       // the largest request of the small pool
inline constexpr std::uint64_t kSmallBuffer = 2 * kMiB;     // small-pool segments
inline constexpr std::uint64_t kMinLargeAlloc = 10 * kMiB;  // requests below share 20 MiB segments
inline constexpr std::uint64_t kLargeBuffer = 20 * kMiB;    // ... of this size
inline constexpr std::uint64_t kRoundLarge = 2 * kMiB;      // larger segments are rounded to 2 MiB
inline constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();
inline constexpr std::size_t kRoundupIntervals = 16;  // 1 MiB, 2 MiB, ... 32 GiB and above

struct AllocatorConfig {
  bool expandable_segments = false;
  std::uint64_t max_split_size = kNoLimit;  // bytes; kNoLimit: every block may be split
  // An oversize block serves a request at most this much smaller than itself (max_non_split_rounding_mb,
  // PyTorch 2.6+; before, always kLargeBuffer).
  std::uint64_t max_non_split_rounding = kLargeBuffer;
  // Divisions per power-of-two interval: [0] for sizes below 2 MiB, [i] for [2^i MiB, 2^(i+1) MiB), the last
  // for everything above. 0 or 1: plain 512-byte rounding.
  std::array<std::uint32_t, kRoundupIntervals> roundup_power2_divisions{};
  // Fraction of the capacity above which cached blocks are freed before a cudaMalloc; 0 = off. PyTorch
  // applies it only under set_per_process_memory_fraction, which the model stands in for with the capacity.
  double garbage_collection_threshold = 0.0;

  std::uint32_t divisions_for(std::uint64_t size) const;
  bool operator==(const AllocatorConfig&) const = default;
};

// The snapshot's `allocator_settings` (PyTorch 2.3+); defaults where the file has none (2.0-2.2: they are
// then PyTorch's defaults only if the run did not set PYTORCH_CUDA_ALLOC_CONF, which the file cannot say).
// Keys the model does not use are ignored; values it cannot read are noted in `notes`.
AllocatorConfig config_from_snapshot(const snapshot::Snapshot& snap, std::vector<std::string>& notes);

// Applies one "key:value" as PYTORCH_CUDA_ALLOC_CONF spells it: expandable_segments:True|False,
// max_split_size_mb:N (above 20, or "none"), roundup_power2_divisions:N or [256:1,512:2,>:4] (powers of two),
// garbage_collection_threshold:F (0 < F < 1), max_non_split_rounding_mb:N. Throws oomscope::Error
// (InvalidArgument) naming the setting and what is wrong.
void apply_setting(AllocatorConfig& config, std::string_view key_value);

// The settings that differ from `base`, as PYTORCH_CUDA_ALLOC_CONF text ("expandable_segments:True,...");
// "recorded" when none differ.
std::string describe_change(const AllocatorConfig& config, const AllocatorConfig& base);
// Every setting, as key -> text, for JSON and text output.
std::vector<std::pair<std::string, std::string>> setting_values(const AllocatorConfig& config);

}  // namespace oomscope::allocator
