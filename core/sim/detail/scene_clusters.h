#pragma once
// The furniture clusters of a scene, drawn once from the scene's point stream: shared by the point generator
// (scene.cpp) and the point process the simulator splits (scene_layout.cpp), so that both are one layout.

#include <cstdint>

#include "core/sim/detail/rng.h"

namespace oomscope::sim::detail {

struct Cluster {
  float c[3];
  float sigma[3];
  float weight;
};
inline constexpr int kMaxClusters = 6;
// Shares of the points: clusters (by weight), floor, and the four walls together.
inline constexpr double kClusterShare = 0.7;
inline constexpr float kFloorThickness = 0.03f;
inline constexpr float kWallDepth = 0.02f;

// Draws 2 to kMaxClusters clusters for a room of size L into `out`; returns how many, and their total weight.
inline int draw_clusters(Rng& rng, const float L[3], Cluster out[kMaxClusters], float& total) {
  const int k = 2 + static_cast<int>(rng.below(kMaxClusters - 1));
  total = 0;
  for (int i = 0; i < k; ++i) {
    auto& cl = out[i];
    cl.c[0] = static_cast<float>(L[0] * (0.05 + 0.9 * rng.uniform()));
    cl.c[1] = static_cast<float>(L[1] * (0.05 + 0.9 * rng.uniform()));
    cl.c[2] = static_cast<float>(L[2] * 0.6 * rng.uniform());
    const double sigma = 0.08 + 0.35 * rng.uniform();
    cl.sigma[0] = static_cast<float>(sigma);
    cl.sigma[1] = static_cast<float>(sigma * (0.5 + rng.uniform()));
    cl.sigma[2] = static_cast<float>(sigma * 0.5);
    cl.weight = static_cast<float>(0.2 + rng.uniform());
    total += cl.weight;
  }
  return k;
}

}  // namespace oomscope::sim::detail
