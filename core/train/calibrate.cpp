#include "core/train/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "core/sim/scene.h"
#include "core/train/budget_allocator.h"
#include "core/util/bytes.h"

namespace oomscope::train {

namespace {

// Least squares y = a + b x.
void fit(const std::vector<double>& x, const std::vector<double>& y, double& a, double& b) {
  const double n = double(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  const double d = n * sxx - sx * sx;
  b = d != 0 ? (n * sxy - sx * sy) / d : 0;
  a = (sy - b * sx) / n;
}

HostFragment scene_fragment(std::int64_t scene, std::uint64_t seed, std::int64_t points) {
  HostFragment f;
  SceneChunk c;
  c.scene = scene;
  c.points.resize(static_cast<std::size_t>(points));
  sim::generate_scene_points(scene, seed, c.points);
  f.chunks.push_back(std::move(c));
  f.origin = sim::Origin::Scene;
  return f;
}

}  // namespace

Calibration calibrate(const ModelConfig& config, const std::vector<std::int64_t>& points, int repeats,
                      std::ostream& log) {
  install_budget_allocator();
  set_budget(0);
  auto model = TorchModel::create(config);
  Calibration c;
  c.model = model->describe();
  // Warm-up: one full step, so that gradients, the accumulator and the momentum buffers exist (a real
  // run holds them from its first step on).
  {
    const HostFragment f = scene_fragment(0, config.scene_seed, 2000);
    model->zero_grad();
    model->attempt(f, 1.0);
    model->keep_gradient();
    model->load_accumulated(1.0);
    model->optimizer_step();
    model->zero_grad();
  }
  std::vector<double> xs, bytes, secs;
  for (const std::int64_t n : points) {
    const HostFragment f = scene_fragment(0, config.scene_seed, n);
    CalibrationSample s;
    s.points = n;
    std::vector<double> times;
    for (int r = 0; r < std::max(repeats, 1); ++r) {
      reset_peak();
      const auto t0 = std::chrono::steady_clock::now();
      model->attempt(f, 1.0);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      s.peak_bytes = std::max(s.peak_bytes, allocator_stats().peak_bytes);
      model->zero_grad();
    }
    std::sort(times.begin(), times.end());
    s.seconds = times[times.size() / 2];
    log << "calibrate: " << format_bytes_exact(n) << " points: peak " << format_bytes_exact(s.peak_bytes)
        << " bytes, " << s.seconds * 1e3 << " ms\n";
    c.samples.push_back(s);
    xs.push_back(double(n));
    bytes.push_back(double(s.peak_bytes));
    secs.push_back(s.seconds);
  }
  double a = 0, b = 0;
  fit(xs, bytes, a, b);
  c.fixed_bytes = static_cast<std::int64_t>(std::llround(a));
  c.bytes_per_point = b;
  for (const auto& s : c.samples)
    c.max_bytes_error = std::max(
        c.max_bytes_error, std::abs(a + b * double(s.points) - double(s.peak_bytes)) / double(s.peak_bytes));
  fit(xs, secs, c.time_fixed_s, c.time_per_point_s);
  c.time_fixed_s = std::max(c.time_fixed_s, 0.0);
  return c;
}

std::string calibration_json(const Calibration& c) {
  nlohmann::ordered_json j;
  j["format"] = "oomscope-sim-model";
  j["version"] = 1;
  j["fixed_bytes"] = c.fixed_bytes;
  j["bytes_per_point"] = c.bytes_per_point;
  j["time_fixed_s"] = c.time_fixed_s;
  j["time_per_point_s"] = c.time_per_point_s;
  j["torch_version"] = torch_version();
  j["device"] = "cpu";
  j["model"] = c.model;
  return j.dump(2) + "\n";
}

}  // namespace oomscope::train
