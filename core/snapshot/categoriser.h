#pragma once
// Categorises the allocations of one snapshot: the user's rules (category_rules.h) first, then the built-in
// rules of categories.h, then the stage the allocation was made in (between external_annotations
// markers: forward, backward, optimizer step) for what no frame decides. Built once per snapshot (frames are
// matched once, not per allocation); const and shareable.

#include <cstdint>
#include <string>
#include <vector>

#include "core/snapshot/categories.h"
#include "core/snapshot/category_rules.h"
#include "core/snapshot/snapshot.h"
#include "core/snapshot/timeline.h"

namespace oomscope::snapshot {

class Categoriser {
 public:
  // `rules` (may be null) must outlive the categoriser.
  explicit Categoriser(const Snapshot& snap, const CategoryRules* rules = nullptr);

  // frames: the allocation's stack; lifetime_events: trace entries between alloc and free (-1: unknown or
  // never freed); time_us: when it was allocated (-1: unknown); device: its device; alloc_index: the raw
  // trace index of its alloc entry (-1: none), whose user_metadata and compile_context metadata and
  // compile_context rules read.
  Categorised operator()(FramesId frames, std::int64_t lifetime_events, std::int64_t time_us,
                         std::int64_t device, std::int64_t alloc_index = -1) const;
  // An element of a device's timeline: its lifetime and alloc time read from the device's trace.
  Categorised of(const TimelineElement& e, std::int64_t device) const;

  const FrameTraits& traits() const { return traits_; }

 private:
  enum class Stage : std::uint8_t { None, Forward, Backward, OptimizerStep };
  struct Window {  // an external_annotations START..END pair on one device
    std::string name;
    std::int64_t device = 0, start_us = 0, end_us = 0;
    Stage stage = Stage::None;
  };
  const Categorised* user_rule(FramesId frames, std::int64_t time_us, std::int64_t device,
                               std::int64_t alloc_index, std::string* why) const;
  // The stage window open at time_us on device that started last (nested ranges: the innermost), or null.
  const Window* stage_window(std::int64_t time_us, std::int64_t device) const;

  const Snapshot& snap_;
  const CategoryRules* rules_;
  FrameTraits traits_;
  std::vector<std::uint64_t> frame_rule_bits_;  // per frame: the user rules (frame/file/function) it matches
  std::vector<Window> windows_;
};

}  // namespace oomscope::snapshot
