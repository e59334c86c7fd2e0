#pragma once
// What an allocation is, guessed from its stack frames (innermost first) and, failing that, from its
// lifetime. Every guess carries the rule that made it, so the user can judge it. The rules and their order
// are in docs/categories.md; a user's rules (category_rules.h) go before them through Categoriser
// (categoriser.h).

#include <cstdint>
#include <string>
#include <vector>

#include "core/snapshot/snapshot.h"
#include "core/util/enum_names.h"

namespace oomscope::snapshot {

enum class Category : std::uint8_t {
  Parameters,
  OptimizerState,
  Gradients,
  Activations,
  Temporaries,
  KvCache,
  Communication,
  Custom,  // a user rule's own name (Categorised::name)
  Other,
  Unknown
};
inline constexpr int kCategoryCount = 10;
inline constexpr EnumName<Category> kCategoryNames[] = {{Category::Parameters, "parameters"},
                                                        {Category::OptimizerState, "optimizer state"},
                                                        {Category::Gradients, "gradients"},
                                                        {Category::Activations, "activations"},
                                                        {Category::Temporaries, "temporaries"},
                                                        {Category::KvCache, "KV cache"},
                                                        {Category::Communication, "communication"},
                                                        {Category::Custom, "custom"},
                                                        {Category::Other, "other"},
                                                        {Category::Unknown, "unknown"}};
static_assert(names_every_value(kCategoryNames, Category::Unknown));
const char* to_string(Category c) noexcept;  // "parameters", "optimizer state", ...

struct Categorised {
  Category category = Category::Unknown;
  std::string rule;  // "a frame in torch/optim/ (optimizer.step)", "no stack recorded", ...
  std::string name;  // Custom: the user rule's category name; else empty
  // The name shown: the user's name for Custom, else to_string(category).
  std::string label() const { return category == Category::Custom ? name : std::string(to_string(category)); }
};

// What each distinct frame says (computed once per snapshot: paths are normalised once, not per allocation).
struct FrameTraits {
  std::vector<std::uint8_t>
      bits;  // per frame: kOptim | kBackward | kParams | kForward | kKvCache | kComm | kCheckpoint
};
FrameTraits frame_traits(const Snapshot& snap);

// frames: the allocation's stack. lifetime_events: trace entries between alloc and free (-1: unknown or never
// freed).
Categorised categorise(const Snapshot& snap, const FrameTraits& traits, FramesId frames,
                       std::int64_t lifetime_events = -1);
inline Categorised categorise(const Snapshot& snap, FramesId frames, std::int64_t lifetime_events = -1) {
  return categorise(snap, frame_traits(snap), frames, lifetime_events);
}

// A stack of a module's forward() with no backward frame: an allocation made by a forward pass.
bool is_forward_stack(const Snapshot& snap, const FrameTraits& traits, FramesId frames);

// "file.py:123 in name" for the innermost frame that is user Python code (not torch internals, not C++),
// else the innermost Python frame; a stack of C++ frames only (the autograd engine's threads) gives
// "no Python frame; in <autograd node or ATen operator>", else its innermost frame; "" without frames.
std::string user_frame(const Snapshot& snap, FramesId frames);
// Is this a Python source frame (".py" file), as opposed to a C++ or unknown frame?
bool is_python_frame(const Frame& f);

}  // namespace oomscope::snapshot
