// The only trainer file that includes torch/torch.h (each such file costs ~25 s to compile).

#include "core/train/torch_model.h"

#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "core/sim/scene.h"

namespace oomscope::train {

namespace {

constexpr int kFeatures = 5;
constexpr int kClasses = 4;

struct Net : torch::nn::Module {
  Net(int w, bool pool)
      : l1(register_module("l1", torch::nn::Linear(kFeatures, w))),
        l2(register_module("l2", torch::nn::Linear(w, 2 * w))),
        l3(register_module("l3", torch::nn::Linear(pool ? 4 * w : 2 * w, 2 * w))),
        l4(register_module("l4", torch::nn::Linear(2 * w, kClasses))),
        pool(pool) {}

  // `ranges`: [begin, end) of each scene's points in x.
  torch::Tensor forward(const torch::Tensor& x,
                        const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges) {
    torch::Tensor h = torch::relu(l2(torch::relu(l1(x))));
    if (pool) {
      std::vector<torch::Tensor> g;
      g.reserve(ranges.size());
      for (const auto& [a, b] : ranges) {
        const torch::Tensor part = h.slice(0, a, b);
        g.push_back(std::get<0>(part.max(0, /*keepdim=*/true)).expand({b - a, part.size(1)}));
      }
      h = torch::cat({h, torch::cat(g, 0)}, 1);
    }
    return l4(torch::relu(l3(h)));
  }

  torch::nn::Linear l1, l2, l3, l4;
  bool pool;
};

class Model final : public TorchModel {
 public:
  explicit Model(const ModelConfig& c) : config_(c) {
    torch::set_num_threads(c.threads);
    torch::manual_seed(c.init_seed);
    net_ = std::make_shared<Net>(c.width, c.scene_pool);
    opt_ = std::make_unique<torch::optim::SGD>(net_->parameters(),
                                               torch::optim::SGDOptions(c.lr).momentum(c.momentum));
  }

  void zero_grad() override {
    for (auto& p : net_->parameters())
      if (p.grad().defined()) p.grad().zero_();
  }

  double attempt(const HostFragment& f, double loss_scale) override {
    const std::int64_t n = f.points();
    const bool bug = config_.fault != sim::BugKind::None &&
                     std::any_of(f.chunks.begin(), f.chunks.end(),
                                 [&](const SceneChunk& c) { return c.scene == config_.fault_scene; });
    // A scene with the shape bug arrives with one feature channel too many (a loader bug).
    const int width = bug && config_.fault == sim::BugKind::ShapeMismatch ? kFeatures + 1 : kFeatures;
    // "Move to the device": every tensor below is allocated through the (budgeted) CPU allocator.
    torch::Tensor pos = torch::empty({n, 3}, torch::kFloat32);
    torch::Tensor feat = torch::empty({n, width}, torch::kFloat32);
    torch::Tensor label = torch::empty({n}, torch::kInt64);
    torch::Tensor scene = torch::empty({n}, torch::kInt64);
    float* pp = pos.data_ptr<float>();
    float* fp = feat.data_ptr<float>();
    std::int64_t* lp = label.data_ptr<std::int64_t>();
    std::int64_t* sp = scene.data_ptr<std::int64_t>();
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    std::int64_t i = 0;
    for (const auto& c : f.chunks) {
      const sim::Bbox room = sim::scene_room(c.scene, config_.scene_seed);
      const float L[3] = {room.hi[0], room.hi[1], room.hi[2]};
      const bool nan = bug && config_.fault == sim::BugKind::NanLoss && c.scene == config_.fault_scene;
      const std::int64_t begin = i;
      for (const sim::Point& p : c.points) {
        pp[3 * i] = p.x, pp[3 * i + 1] = p.y, pp[3 * i + 2] = p.z;
        float* q = fp + width * i;
        q[0] = p.x / L[0], q[1] = p.y / L[1], q[2] = p.z / L[2], q[3] = p.z, q[4] = 1.0f;
        for (int k = kFeatures; k < width; ++k) q[k] = 0.0f;
        if (nan) q[3] = std::nanf("");
        const float wall = std::min({p.x, p.y, L[0] - p.x, L[1] - p.y});
        lp[i] = p.z < 0.05f ? 0 : wall < 0.05f ? 1 : p.z < 1.0f ? 2 : 3;
        sp[i] = c.scene;
        ++i;
      }
      ranges.emplace_back(begin, i);
    }
    if (config_.keep_step_inputs) step_input_ = feat;
    const torch::Tensor logits = net_->forward(feat, ranges);
    const torch::Tensor loss = torch::nn::functional::cross_entropy(logits, label);
    const double value = loss.item<double>();
    if (!std::isfinite(value))
      throw NonFiniteLoss("loss is not finite (" + std::to_string(value) + ") on a fragment of " +
                          std::to_string(n) + " points");
    (loss * loss_scale).backward();
    return value;
  }

  void keep_gradient() override {
    auto params = net_->parameters();
    if (acc_.empty())
      for (auto& p : params) acc_.push_back(torch::zeros_like(p));
    for (std::size_t k = 0; k < params.size(); ++k)
      if (params[k].grad().defined()) acc_[k].add_(params[k].grad());
  }

  void load_accumulated(double factor) override {
    auto params = net_->parameters();
    for (std::size_t k = 0; k < params.size(); ++k) {
      auto& p = params[k];
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      if (acc_.empty())
        p.grad().zero_();
      else if (factor == 1.0)
        p.grad().copy_(acc_[k]);
      else
        p.grad().copy_(acc_[k] * factor);
    }
    acc_.clear();
  }

  void optimizer_step() override { opt_->step(); }

  std::vector<float> flat_weights() const override { return flatten(false); }
  std::vector<float> flat_gradient() const override { return flatten(true); }

  std::int64_t parameter_count() const override {
    std::int64_t n = 0;
    for (const auto& p : net_->parameters()) n += p.numel();
    return n;
  }

  std::string describe() const override {
    return "pointnet-seg width " + std::to_string(config_.width) +
           (config_.scene_pool ? ", scene pool" : ", no pool") + ", " + std::to_string(parameter_count()) +
           " parameters, SGD lr " + std::to_string(config_.lr) + " momentum " +
           std::to_string(config_.momentum);
  }

  std::string save_state() const override {
    torch::serialize::OutputArchive archive, model, optim;
    net_->save(model);
    opt_->save(optim);
    archive.write("model", model);
    archive.write("optimizer", optim);
    {
      at::Generator gen = torch::globalContext().defaultGenerator(torch::kCPU);
      std::lock_guard<std::mutex> lock(gen.mutex());
      archive.write("rng", gen.get_state());
    }
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
  }

  void load_state(const std::string& bytes) override {
    std::istringstream in(bytes);
    torch::serialize::InputArchive archive, model, optim;
    archive.load_from(in);
    archive.read("model", model);
    archive.read("optimizer", optim);
    net_->load(model);
    opt_->load(optim);
    torch::Tensor rng;
    archive.read("rng", rng);
    at::Generator gen = torch::globalContext().defaultGenerator(torch::kCPU);  // a handle to the global one
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(rng);
  }

  void hold_bytes(std::int64_t bytes) override {
    if (bytes > 0) held_.push_back(torch::empty({bytes}, torch::kUInt8));
  }

  void keep_step_tensors(std::int64_t bytes) override {
    const torch::Tensor input = std::move(step_input_);
    step_input_ = torch::Tensor();
    if (bytes <= 0 || !input.defined()) return;
    torch::Tensor kept = torch::empty({bytes}, torch::kUInt8);
    const auto* src = static_cast<const std::uint8_t*>(input.data_ptr());
    const auto size = static_cast<std::int64_t>(input.numel() * input.element_size());
    auto* dst = kept.data_ptr<std::uint8_t>();
    for (std::int64_t at = 0; at < bytes && size > 0; at += size)
      std::memcpy(dst + at, src, static_cast<std::size_t>(std::min(size, bytes - at)));
    kept_.push_back(std::move(kept));
  }

 private:
  std::vector<float> flatten(bool grad) const {
    std::vector<float> out;
    torch::NoGradGuard guard;
    for (const auto& p : net_->parameters()) {
      const torch::Tensor t =
          (grad ? (p.grad().defined() ? p.grad() : torch::zeros_like(p)) : p).contiguous();
      out.insert(out.end(), t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    }
    return out;
  }

  ModelConfig config_;
  std::shared_ptr<Net> net_;
  std::unique_ptr<torch::optim::SGD> opt_;
  std::vector<torch::Tensor> acc_;
  std::vector<torch::Tensor> held_;
  std::vector<torch::Tensor> kept_;  // keep_step_tensors
  torch::Tensor step_input_;
};

}  // namespace

std::unique_ptr<TorchModel> TorchModel::create(const ModelConfig& config) {
  return std::make_unique<Model>(config);
}

}  // namespace oomscope::train
