#pragma once
// Shared set-up of the LibTorch tests: small scenes (thousands of points) so that each test takes seconds.

#include <cstdint>
#include <sstream>
#include <vector>

#include "core/train/budget_allocator.h"
#include "core/train/calibrate.h"
#include "core/train/fragment.h"
#include "core/train/split_retry.h"
#include "core/train/torch_model.h"

namespace oomscope::train::testing {

// Six scenes, two batches of three.
inline const std::vector<std::int64_t> kSizes = {3000, 5000, 4000, 6000, 2500, 7000};

inline ModelConfig small_model(bool pool) {
  ModelConfig c;
  c.width = 16;
  c.scene_pool = pool;
  c.init_seed = 7;
  c.scene_seed = 1;
  return c;
}

inline HostFragment batch_of(std::vector<std::int64_t> scenes, std::uint64_t seed = 1) {
  return make_batch(scenes, kSizes, seed);
}

// Forwards to a runner and keeps the gradient that reached the optimizer step.
class GradCapture final : public AttemptRunner {
 public:
  explicit GradCapture(TorchModel& m) : m_(m) {}
  void zero_grad() override { m_.zero_grad(); }
  double attempt(const HostFragment& f, double scale) override { return m_.attempt(f, scale); }
  void keep_gradient() override { m_.keep_gradient(); }
  void load_accumulated(double factor) override { m_.load_accumulated(factor); }
  void optimizer_step() override {
    stepped = m_.flat_gradient();
    m_.optimizer_step();
  }
  std::vector<float> stepped;

 private:
  TorchModel& m_;
};

// A budget between what an attempt of `fits` and of `fails` points needs (a quick calibration of `mc`).
inline std::int64_t budget_between(const ModelConfig& mc, std::int64_t fits, std::int64_t fails) {
  std::ostringstream log;
  const Calibration c = calibrate(mc, {1000, 3000}, 1, log);
  const double mid = (double(fits) + double(fails)) / 2;
  return c.fixed_bytes + static_cast<std::int64_t>(c.bytes_per_point * mid);
}

}  // namespace oomscope::train::testing
