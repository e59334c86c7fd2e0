#pragma once
// Shape churn: why a graph cache keeps growing. Given the distinct padded batch shapes a trainer reported
// (the `new` lists of its `shapes` lines), this finds the dimensions that vary, how many shapes each size
// class holds, and suggests padding bucket sets (powers of two, multiples of 8/64, quantile buckets) with
// the number of distinct shapes each leaves and the padding waste it costs: extra elements over the
// observed ones, each distinct shape counted once (the agent reports shapes, not how often each occurs).

#include <cstdint>
#include <string>
#include <vector>

namespace oomscope::live {

using Shape = std::vector<std::int64_t>;

struct DimensionStats {
  int index = 0;
  std::int64_t min = 0, max = 0;
  std::int64_t distinct = 0;  // distinct sizes seen in this dimension
};

struct BucketPlan {
  std::string name;  // "powers of two", "multiples of 64", "8 quantile buckets"
  std::vector<std::vector<std::int64_t>> boundaries;  // per varying dimension: the sizes padded up to
  std::int64_t distinct_after = 0;                    // distinct shapes once padded
  double waste = 0;                                   // padded elements / observed elements - 1
};

struct ShapeChurn {
  std::int64_t shapes = 0;           // distinct shapes analysed
  std::int64_t reported = 0;         // the agent's own distinct count (may exceed `shapes` when capped)
  std::vector<DimensionStats> dims;  // the varying dimensions only
  int rank = 0;                      // the shapes' rank (number of dimensions); 0 when they disagree
  // Histogram of shape sizes: elements per shape in power-of-two classes -> number of shapes.
  std::vector<std::pair<std::int64_t, std::int64_t>> size_histogram;
  std::vector<BucketPlan> plans;  // sorted by waste, best first
};

// `shapes` may hold duplicates (they are removed). Shapes of a different rank than the most common one are
// left out of the plans (and counted in `shapes`).
ShapeChurn analyse_shape_churn(std::vector<Shape> shapes, std::int64_t reported_distinct = 0);

// A few lines for a terminal.
std::string shape_churn_text(const ShapeChurn& churn);

}  // namespace oomscope::live
