#pragma once
// Imbalance across the ranks of one job, as max / median of one figure (a peak, a category's bytes), shared
// by the three readers that compare ranks: per-rank snapshots (core/snapshot/rank_comparison.h), per-rank
// Kineto traces (core/snapshot/kineto_ranks.h) and a live recording's ranks
// (core/live/client/recording_ranks.h). This library links only oomscope_util, so each can use it without
// pulling in the others.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace oomscope::ranks {

struct RankValue {  // one rank's figure
  std::int64_t rank = 0;
  std::int64_t bytes = 0;
};

struct Imbalance {  // max / median over the ranks
  std::string name;
  std::int64_t max_bytes = 0, max_rank = 0;  // the first rank given wins a tie
  double median = 0;
  std::optional<double> ratio;  // none when the median is 0
};

// The median of the values (the mean of the two middle ones for an even count); 0 for none.
double median_of(std::vector<std::int64_t> v);

// max / median of the values, in the ranks' order.
Imbalance imbalance_of(std::string name, const std::vector<RankValue>& values);

// "1.23x", or "-" without a ratio.
std::string ratio_text(const Imbalance& im);

// The line of the text reports: "  peak allocated    1.23x   max 2.00 GiB (rank 3), median 1.62 GiB".
void write_imbalance_line(std::ostream& o, const Imbalance& im, std::size_t name_width = 18);

// A median is a whole number of bytes for an odd count and may end in .5 for an even one: an integer in
// the JSON when it is whole, else the double.
nlohmann::json median_json(double m);

// {name, max_bytes, max_rank, median_bytes, ratio} (docs/report-json.md, "Ranks of one job").
nlohmann::json imbalance_json(const Imbalance& im);

}  // namespace oomscope::ranks
