#pragma once
// Headroom: how far a rank is from running out of device memory, from its latest sample:
//   capacity = the hello's total_bytes, else the sample's recommended_max (MPS);
//   used     = device_used (the whole process as the driver sees it), else driver (MPS), else reserved.
// The rank table (CLI and Live page) sorts by it so that the rank closest to OOM comes first.

#include <cstdint>
#include <vector>

#include "core/live/store.h"

namespace oomscope::live {

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
