#pragma once
// Builders for hand-made runtime inputs: allocator events that keep bytes_in_use consistent, and spans.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/capture/capture.h"

namespace oomscope::analysis::testing {

// Appends allocator events with a running bytes_in_use per allocator (start = bytes held before the capture).
class MemoryScript {
 public:
  explicit MemoryScript(std::int64_t capacity = 1000000, std::vector<std::int64_t> start = {0, 0})
      : capacity_(capacity), in_use_(std::move(start)) {}

  MemoryScript& alloc(std::int64_t t, std::uint64_t addr, std::int64_t bytes, std::uint32_t line = 0,
                      std::uint32_t allocator = 0) {
    in_use_[allocator] += bytes;
    push(t, capture::MemoryEventKind::Allocation, addr, bytes, line, allocator);
    return *this;
  }
  MemoryScript& free(std::int64_t t, std::uint64_t addr, std::int64_t bytes, std::uint32_t line = 0,
                     std::uint32_t allocator = 0) {
    in_use_[allocator] -= bytes;
    push(t, capture::MemoryEventKind::Deallocation, addr, bytes, line, allocator);
    return *this;
  }
  const std::vector<capture::MemoryEvent>& events() const { return events_; }

 private:
  void push(std::int64_t t, capture::MemoryEventKind kind, std::uint64_t addr, std::int64_t bytes,
            std::uint32_t line, std::uint32_t allocator) {
    capture::MemoryEvent e;
    e.time_ps = t;
    e.kind = kind;
    e.allocator = allocator;
    e.addr = addr;
    e.requested_bytes = bytes;
    e.allocation_bytes = bytes;
    e.bytes_in_use = in_use_[allocator];
    e.bytes_available = capacity_ - in_use_[allocator];
    e.peak_bytes_in_use = in_use_[allocator];
    e.line = line;
    events_.push_back(e);
  }
  std::int64_t capacity_;
  std::vector<std::int64_t> in_use_;
  std::vector<capture::MemoryEvent> events_;
};

inline capture::ExecutionSpan span(capture::ExecutionKind kind, std::string name, std::int64_t t,
                                   std::int64_t d, std::uint32_t line = 0,
                                   std::optional<std::uint64_t> program_id = std::nullopt,
                                   std::uint32_t plane = 0) {
  capture::ExecutionSpan s;
  s.kind = kind;
  s.name = std::move(name);
  s.time_ps = t;
  s.duration_ps = d;
  s.line = line;
  s.plane = plane;
  s.program_id = program_id;
  return s;
}

// A host execution as the GPU client writes it: ExecuteHelper with the module span inside (unless failed).
inline void add_execution(std::vector<capture::ExecutionSpan>& spans, const std::string& module,
                          std::int64_t t, std::int64_t d, bool module_span = true, std::uint32_t line = 0) {
  spans.push_back(span(capture::ExecutionKind::ExecuteHelper,
                       "PjRtStreamExecutorLoadedExecutable::ExecuteHelper", t, d, line));
  if (module_span) spans.push_back(span(capture::ExecutionKind::XlaModule, module, t + d / 2, d / 4, line));
}

inline capture::EventRecord record(std::int64_t metadata_id, std::int64_t t, std::int64_t d) {
  return capture::EventRecord(t, d, metadata_id);
}

}  // namespace oomscope::analysis::testing
