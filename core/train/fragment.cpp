#include "core/train/fragment.h"

#include "core/sim/split.h"

namespace oomscope::train {

std::int64_t HostFragment::points() const {
  std::int64_t n = 0;
  for (const auto& c : chunks) n += static_cast<std::int64_t>(c.points.size());
  return n;
}

sim::Bbox HostFragment::bbox() const {
  sim::Bbox box;
  bool first = true;
  for (const auto& c : chunks) {
    if (c.points.empty()) continue;
    const sim::Bbox b = sim::bounds_of(c.points);
    if (first)
      box = b, first = false;
    else
      box.include(b);
  }
  return box;
}

HostFragment make_batch(std::span<const std::int64_t> scenes, std::span<const std::int64_t> scene_sizes,
                        std::uint64_t seed) {
  HostFragment f;
  f.chunks.reserve(scenes.size());
  for (const std::int64_t s : scenes) {
    SceneChunk c;
    c.scene = s;
    c.points.resize(static_cast<std::size_t>(scene_sizes[static_cast<std::size_t>(s)]));
    sim::generate_scene_points(s, seed, c.points);
    f.chunks.push_back(std::move(c));
  }
  return f;
}

std::vector<HostFragment> split_by_scene(HostFragment&& failed, std::int64_t parent_event) {
  std::vector<HostFragment> out;
  out.reserve(failed.chunks.size());
  for (auto& c : failed.chunks) {
    HostFragment f;
    f.chunks.push_back(std::move(c));
    f.parent = parent_event;
    f.depth = failed.depth + 1;
    f.origin = sim::Origin::Scene;
    f.split_on_x = failed.split_on_x;
    out.push_back(std::move(f));
  }
  failed.chunks.clear();
  return out;
}

SpatialSplit split_spatial(HostFragment&& failed, std::int64_t parent_event, sim::AxisRule axis_rule,
                           sim::SplitPoint split_point) {
  SpatialSplit r;
  SceneChunk& chunk = failed.chunks.at(0);
  const sim::Bbox box = sim::bounds_of(chunk.points);
  const int axis = sim::choose_axis(axis_rule, failed.split_on_x, box);
  const sim::SplitResult s = sim::split_points(chunk.points, axis, split_point, box);
  const auto n = static_cast<std::int64_t>(chunk.points.size());
  r.separated = s.low_count > 0 && s.low_count < n;
  for (int side = 0; side < 2; ++side) {
    HostFragment& h = side == 0 ? r.low : r.high;
    h.parent = parent_event;
    h.depth = failed.depth + 1;
    h.origin = side == 0 ? sim::Origin::SpatialLow : sim::Origin::SpatialHigh;
    h.axis = static_cast<std::int8_t>(axis);
    h.split_value = s.value;
    h.split_on_x = !failed.split_on_x;
    h.stalled = !r.separated;
    SceneChunk c;
    c.scene = chunk.scene;
    const auto mid = chunk.points.begin() + static_cast<std::ptrdiff_t>(s.low_count);
    if (side == 0)
      c.points.assign(chunk.points.begin(), mid);
    else
      c.points.assign(mid, chunk.points.end());
    h.chunks.push_back(std::move(c));
  }
  failed.chunks.clear();
  return r;
}

}  // namespace oomscope::train
