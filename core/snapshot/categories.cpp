#include "core/snapshot/categories.h"

#include <algorithm>
#include <cctype>

namespace oomscope::snapshot {

namespace {

std::string normalised(const std::string& path) {
  std::string s = path;
  for (char& c : s) {
    if (c == '\\') c = '/';
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

bool is_torch_internal(const std::string& file) {
  return contains(file, "/torch/") || contains(file, "site-packages/") || contains(file, "dist-packages/") ||
         contains(file, "/lib/python");
}

// C++ frames of the autograd engine: backward() runs on the engine's own threads, whose stacks hold no
// Python frame at all ("torch::autograd::Engine::thread_main", "...generated::BmmBackward0::apply").
bool is_autograd_engine_frame(const std::string& name) {
  return name.starts_with("torch::autograd::Engine::") ||
         (name.starts_with("torch::autograd::generated::") && contains(name, "Backward"));
}

// A C++ function name without its argument list: "at::_ops::bmm::call(at::Tensor const&, ...)" ->
// "at::_ops::bmm::call". Only for names that start with a qualified identifier.
std::string without_arguments(const std::string& name) {
  const auto open = name.find('(');
  if (open == std::string::npos || open == 0) return name;
  return name.substr(0, open);
}

// For a stack without Python frames: the frame that says what ran, in that order the autograd node
// ("BmmBackward0::apply"), the ATen operator ("at::_ops::bmm::call"), else the innermost frame.
std::string cpp_only_where(const Snapshot& snap, const std::vector<std::uint32_t>& ids) {
  for (std::uint32_t id : ids) {
    const std::string& name = snap.frames[id].name;
    if (name.starts_with("torch::autograd::generated::") && contains(name, "Backward") &&
        contains(name, "::apply("))
      return "no Python frame; in " + without_arguments(name);
  }
  for (std::uint32_t id : ids) {
    const std::string& name = snap.frames[id].name;
    if (name.starts_with("at::_ops::")) return "no Python frame; in " + without_arguments(name);
  }
  const Frame& f = snap.frames[ids.front()];
  return "no Python frame; innermost " + f.filename + ":" + std::to_string(f.line) + " in " + f.name;
}

}  // namespace

const char* to_string(Category c) noexcept { return enum_name(kCategoryNames, c, "?"); }

bool is_python_frame(const Frame& f) { return f.filename.size() > 3 && f.filename.ends_with(".py"); }

namespace {
constexpr std::uint8_t kOptim = 1, kBackward = 2, kParams = 4, kForward = 8, kKvCache = 16, kComm = 32,
                       kCheckpoint = 64;

Categorised made(Category c, std::string rule) {
  Categorised out;
  out.category = c;
  out.rule = std::move(rule);
  return out;
}

std::string lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A frame that builds or grows a key/value cache: transformers' Cache classes (cache_utils.py), vLLM's
// cache engine, and functions named for it (FlexGen's init_cache, *_kv_cache, past_key_values).
bool is_kv_cache_frame(const std::string& file, const std::string& name) {
  const std::string n = lower(name);
  return file.ends_with("/cache_utils.py") || file.ends_with("/cache_engine.py") ||
         contains(file, "/kv_cache") || contains(n, "kv_cache") || contains(n, "kvcache") ||
         contains(n, "init_cache") || contains(n, "past_key_value");
}

// A frame of collective communication: torch.distributed (c10d, DDP's reducer, FSDP's all-gathers), NCCL
// and DeepSpeed's comm layer.
bool is_comm_frame(const std::string& file, const std::string& name) {
  return contains(file, "/torch/distributed/") || contains(file, "/torch/nn/parallel/distributed.py") ||
         contains(file, "/deepspeed/comm/") || name.starts_with("c10d::") || contains(lower(name), "nccl");
}
}  // namespace

FrameTraits frame_traits(const Snapshot& snap) {
  FrameTraits t;
  t.bits.resize(snap.frames.size());
  for (std::size_t i = 0; i < snap.frames.size(); ++i) {
    const Frame& f = snap.frames[i];
    const std::string file = normalised(f.filename);
    std::uint8_t b = 0;
    if (contains(file, "/torch/optim/") && f.name != "zero_grad") b |= kOptim;
    if (f.name == "backward" || f.name == "_engine_run_backward" || f.name == "run_backward" ||
        contains(file, "/torch/autograd/__init__.py") || contains(file, "/torch/autograd/graph.py") ||
        is_autograd_engine_frame(f.name))
      b |= kBackward;
    if (f.name == "_apply" || f.name == "reset_parameters" || f.name == "load_state_dict" ||
        f.name == "_load_from_state_dict" || f.name.starts_with("init_weight") ||
        contains(file, "/torch/nn/init.py") ||
        (contains(file, "/torch/nn/modules/module.py") &&
         (f.name == "to" || f.name == "cuda" || f.name == "convert")))
      b |= kParams;
    if (f.name == "forward" || f.name == "_call_impl" || f.name == "_wrapped_call_impl") b |= kForward;
    if (is_kv_cache_frame(file, f.name)) b |= kKvCache;
    if (is_comm_frame(file, f.name)) b |= kComm;
    if (contains(file, "/torch/utils/checkpoint.py")) b |= kCheckpoint;
    t.bits[i] = b;
  }
  return t;
}

bool is_forward_stack(const Snapshot& snap, const FrameTraits& traits, FramesId frames) {
  bool forward = false;
  for (std::uint32_t id : snap.frames_of(frames)) {
    const std::uint8_t b = id < traits.bits.size() ? traits.bits[id] : 0;
    if (b & kBackward) return false;
    forward |= (b & kForward) != 0;
  }
  return forward;
}

Categorised categorise(const Snapshot& snap, const FrameTraits& traits, FramesId frames,
                       std::int64_t lifetime_events) {
  const auto& ids = snap.frames_of(frames);
  // The first rule that any frame satisfies wins, rules in this order.
  const Frame* optim = nullptr;
  const Frame* params = nullptr;
  const Frame* comm = nullptr;
  const Frame* kv = nullptr;
  bool backward = false, forward = false, checkpoint = false;
  for (std::uint32_t id : ids) {
    const std::uint8_t b = id < traits.bits.size() ? traits.bits[id] : 0;
    if ((b & kOptim) && !optim) optim = &snap.frames[id];
    if ((b & kParams) && !params) params = &snap.frames[id];
    if ((b & kComm) && !comm) comm = &snap.frames[id];
    if ((b & kKvCache) && !kv) kv = &snap.frames[id];
    backward |= (b & kBackward) != 0;
    forward |= (b & kForward) != 0;
    checkpoint |= (b & kCheckpoint) != 0;
  }
  auto where = [](const Frame* f) { return f->filename + ":" + std::to_string(f->line) + " in " + f->name; };
  if (optim) return made(Category::OptimizerState, "a frame in torch/optim/ (" + optim->name + ")");
  if (comm) return made(Category::Communication, "a frame of collective communication (" + where(comm) + ")");
  if (kv) return made(Category::KvCache, "a frame that builds a key/value cache (" + where(kv) + ")");
  // Activation checkpointing runs a module's forward() again inside backward() (torch/utils/checkpoint.py,
  // reentrant or not): what that allocates is the activations, not gradients. Gradients computed inside a
  // reentrant checkpoint's backward have the checkpoint frame but no forward() frame, and stay gradients.
  if (backward && checkpoint && forward)
    return made(Category::Activations,
                "recomputed in backward() by activation checkpointing (a torch/utils/checkpoint.py frame "
                "and a module's forward())");
  if (backward) return made(Category::Gradients, "allocated inside backward() (a torch.autograd frame)");
  if (params)
    return made(Category::Parameters, "allocated while building or moving the model (" + params->name + ")");
  if (forward) {
    if (lifetime_events >= 0 && lifetime_events <= 16)
      return made(Category::Temporaries, "in forward() and freed within 16 allocator events");
    return made(Category::Activations, "allocated in a module's forward() and kept");
  }
  if (ids.empty()) {
    if (lifetime_events >= 0 && lifetime_events <= 16)
      return made(Category::Temporaries, "no stack; freed within 16 allocator events");
    return made(Category::Unknown, "no stack recorded");
  }
  if (lifetime_events >= 0 && lifetime_events <= 16)
    return made(Category::Temporaries, "freed within 16 allocator events");
  return made(Category::Other, "stack matches no rule");
}

std::string user_frame(const Snapshot& snap, FramesId frames) {
  const auto& ids = snap.frames_of(frames);
  if (ids.empty()) return "";
  const Frame* python = nullptr;
  for (std::uint32_t id : ids) {
    const Frame& f = snap.frames[id];
    if (!is_python_frame(f)) continue;
    if (!python) python = &f;
    if (!is_torch_internal(normalised(f.filename))) {
      python = &f;
      break;
    }
  }
  if (!python) return cpp_only_where(snap, ids);
  return python->filename + ":" + std::to_string(python->line) + " in " + python->name;
}

}  // namespace oomscope::snapshot
