#pragma once
// The demo model behind AttemptRunner: a small PointNet-style segmentation network in LibTorch, on the
// point-cloud fragments of fragment.h. This header is torch-free; torch_model.cpp is the one file of the
// trainer that includes torch/torch.h.
//
// Per point: features [x/Lx, y/Ly, z/Lz, z, 1] (L: the scene's room) -> Linear(5,W) -> ReLU ->
// Linear(W,2W) -> ReLU; optionally the per-scene max of that (PointNet's global feature) concatenated to
// every point; -> Linear(.,2W) -> ReLU -> Linear(2W,4) -> cross-entropy against a label derived from the
// geometry (floor, wall, object below 1 m, object above). Optimizer: SGD with momentum. No layer couples
// the points of different scenes; the per-scene pool couples the points of one scene, so with it the
// accumulated gradient equals the full-batch one only while no scene is split in space.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sim/config.h"
#include "core/train/split_retry.h"

namespace oomscope::train {

struct ModelConfig {
  int width = 16;                // W above
  bool scene_pool = true;        // the per-scene global feature
  std::uint64_t init_seed = 1;   // torch::manual_seed before the weights are made
  std::uint64_t scene_seed = 1;  // the scenes' seed (their rooms give the features and labels)
  double lr = 0.01;
  double momentum = 0.9;
  int threads = 1;                          // intra-op threads (1: bitwise reproducible and no contention)
  sim::BugKind fault = sim::BugKind::None;  // a planted bug in scene fault_scene
  std::int64_t fault_scene = -1;
  bool keep_step_inputs = false;  // keep the last attempt's input tensor until keep_step_tensors()
};

class TorchModel : public AttemptRunner {
 public:
  static std::unique_ptr<TorchModel> create(const ModelConfig& config);

  // All parameters (or their gradients), flattened in registration order.
  virtual std::vector<float> flat_weights() const = 0;
  virtual std::vector<float> flat_gradient() const = 0;
  virtual std::int64_t parameter_count() const = 0;
  // "pointnet-seg width 32, scene pool, 12,868 parameters"
  virtual std::string describe() const = 0;
  // Model, optimizer and RNG state as bytes (LibTorch's archive format), and back.
  virtual std::string save_state() const = 0;
  virtual void load_state(const std::string& bytes) = 0;
  // Holds `bytes` in a tensor for the life of the model (emulates memory that only a restart gives back,
  // like the MPS driver growth of the countermeasures reference).
  virtual void hold_bytes(std::int64_t bytes) = 0;
  // The "gradients kept every step" bug: keeps `bytes` of this step's tensors (the last attempt's input
  // features, repeated when they are smaller) alive for the life of the model, in a tensor of its own.
  // Needs keep_step_inputs; throws c10::OutOfMemoryError past the budget like any allocation.
  virtual void keep_step_tensors(std::int64_t bytes) = 0;
};

}  // namespace oomscope::train
