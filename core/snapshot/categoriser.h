#pragma once
// Categorises the allocations of one snapshot: the user's rules (category_rules.h) first, then the built-in
// rules of categories.h, then the stage the allocation was made in (between external_annotations
// markers). Built once per snapshot (frames are matched once, not per allocation); const and shareable.

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
  // never freed); time_us: when it was allocated (-1: unknown); device: its device.
  Categorised operator()(FramesId frames, std::int64_t lifetime_events, std::int64_t time_us,
                         std::int64_t device) const;
  // An element of a device's timeline: its lifetime and alloc time read from the device's trace.
  Categorised of(const TimelineElement& e, std::int64_t device) const;

  const FrameTraits& traits() const { return traits_; }

 private:
  struct Window {  // an external_annotations START..END pair on one device
    std::string name;
    std::int64_t device = 0, start_us = 0, end_us = 0;
  };
  const Categorised* user_rule(FramesId frames, std::int64_t time_us, std::int64_t device,
                               std::string* why) const;
  const Window* open_window(std::int64_t time_us, std::int64_t device, const std::string& prefix) const;

  const Snapshot& snap_;
  const CategoryRules* rules_;
  FrameTraits traits_;
  std::vector<std::uint64_t> frame_rule_bits_;  // per frame: the user rules (frame/file/function) it matches
  std::vector<Window> windows_;
};

}  // namespace oomscope::snapshot
