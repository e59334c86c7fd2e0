// The typed runtime tables: allocator events, AllocatorRetry waits, execution spans and device events
// tagged with a program. Only the events classified here have their stats decoded during the scan.

#include <algorithm>
#include <charconv>

#include "core/capture/detail/capture_builder.h"

namespace oomscope::capture {

namespace {

struct DecodedStats {
  std::string_view allocator_name, tf_op, shape, hlo_module, hlo_op;
  std::optional<std::int64_t> bytes_allocated, bytes_available, bytes_reserved, peak, requested, allocation;
  std::optional<std::int64_t> addr, step_id, index_on_host, device_ordinal;
  std::optional<std::uint64_t> program_id, correlation_id;
  std::optional<std::int64_t> device_id;
  std::optional<double> fragmentation;
};

DecodedStats decode(const std::uint8_t* base, std::string_view bytes, const IdTable<StatKey>& keys,
                    const std::map<std::int64_t, std::string>& names) {
  DecodedStats d;
  const auto* begin = reinterpret_cast<const std::uint8_t*>(bytes.data());
  wire::WireReader r(base, begin, begin + bytes.size());
  for_each_raw_stat(r, 4, [&](const RawStat& s) {
    switch (keys.find(s.metadata_id)) {
      case StatKey::AllocatorName:
        d.allocator_name = raw_stat_string(s, names);
        break;
      case StatKey::TfOp:
        d.tf_op = raw_stat_string(s, names);
        break;
      case StatKey::Shape:
        d.shape = raw_stat_string(s, names);
        break;
      case StatKey::HloModule:
        d.hlo_module = raw_stat_string(s, names);
        break;
      case StatKey::HloOp:
        d.hlo_op = raw_stat_string(s, names);
        break;
      case StatKey::BytesAllocated:
        d.bytes_allocated = raw_stat_int(s);
        break;
      case StatKey::BytesAvailable:
        d.bytes_available = raw_stat_int(s);
        break;
      case StatKey::BytesReserved:
        d.bytes_reserved = raw_stat_int(s);
        break;
      case StatKey::PeakBytesInUse:
        d.peak = raw_stat_int(s);
        break;
      case StatKey::RequestedBytes:
        d.requested = raw_stat_int(s);
        break;
      case StatKey::AllocationBytes:
        d.allocation = raw_stat_int(s);
        break;
      case StatKey::Addr:
        d.addr = raw_stat_int(s);
        break;
      case StatKey::StepId:
        d.step_id = raw_stat_int(s);
        break;
      case StatKey::IndexOnHost:
        d.index_on_host = raw_stat_int(s);
        break;
      case StatKey::DeviceOrdinal:
        d.device_ordinal = raw_stat_int(s);
        break;
      case StatKey::Fragmentation:
        d.fragmentation = raw_stat_double(s);
        break;
      case StatKey::ProgramId:
        if (auto v = raw_stat_int(s)) d.program_id = static_cast<std::uint64_t>(*v);
        break;
      case StatKey::CorrelationId:
        if (auto v = raw_stat_int(s)) d.correlation_id = static_cast<std::uint64_t>(*v);
        break;
      case StatKey::DeviceId:
        d.device_id = raw_stat_int(s);
        break;
      case StatKey::Other:
        break;
    }
  });
  return d;
}

bool ends_with(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

}  // namespace

// A typed table past its estimate grows by doubling, as push_back would; first the warmer must be done
// with the block that growing frees.
template <typename T>
void CaptureBuilder::grow_for_one(std::vector<T>& table) {
  if (table.size() < table.capacity()) return;
  warmer_.wait();
  table.reserve(std::max<std::size_t>(16, 2 * table.capacity()));
}

EventClass classify_event_name(PlaneKind plane, std::string_view name) {
  if (plane != PlaneKind::HostCpu) return EventClass::None;
  if (name == "MemoryAllocation") return EventClass::MemAlloc;
  if (name == "MemoryDeallocation") return EventClass::MemDealloc;
  if (name == "AllocatorRetry::AllocateRaw") return EventClass::Retry;
  if (ends_with(name, ":XLA GPU module")) return EventClass::XlaModule;
  if (name.starts_with("PjitFunction(") && ends_with(name, ")")) return EventClass::Pjit;
  // One span per call of an executable on a device. PjRt GPU clients name it
  // PjRtStreamExecutorLoadedExecutable::ExecuteHelper, older ones LocalExecutable::Execute; the TFRT TPU
  // client (seen in jax_tpu_v6e_inference) uses TfrtTpuLoadedExecutable::Execute, or
  // ::ExecuteHelperOnSingleDevice for single-device programs. The outer PjRt*::Execute of the GPU client
  // wraps several ExecuteHelpers and is left out so that an execution is not counted twice.
  if (name == "LocalExecutable::Execute" || name == "TfrtTpuLoadedExecutable::Execute")
    return EventClass::ExecuteHelper;
  if (name.starts_with("PjRt") && (ends_with(name, "::ExecuteHelper"))) return EventClass::ExecuteHelper;
  if (name.find("LoadedExecutable::ExecuteHelper") != std::string_view::npos)
    return EventClass::ExecuteHelper;
  // Driver-API callbacks merged onto the host plane (roctracer: hipModuleLaunchKernel, hipMemsetAsync...;
  // CUPTI: cuLaunchKernel, cudaLaunchKernel...). Only those with a correlation_id are kept.
  if (name.starts_with("hip") || name.starts_with("cu")) return EventClass::Launch;
  return EventClass::None;
}

std::optional<std::pair<std::string_view, std::uint64_t>> split_program_suffix(std::string_view name) {
  if (name.size() < 3 || name.back() != ')') return std::nullopt;
  const auto open = name.rfind('(');
  if (open == std::string_view::npos || open + 2 > name.size() - 1) return std::nullopt;
  std::uint64_t id = 0;
  const char* first = name.data() + open + 1;
  const char* last = name.data() + name.size() - 1;
  auto [ptr, ec] = std::from_chars(first, last, id);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return std::make_pair(name.substr(0, open), id);
}

std::uint32_t CaptureBuilder::intern(std::string_view s) {
  if (s.empty()) return 0;
  if (const auto it = string_index_.find(s); it != string_index_.end()) return it->second;
  charge(s.size() + 96, "interned strings");
  const auto index = static_cast<std::uint32_t>(capture_->strings_.size());
  string_index_.emplace(std::string(s), index);
  capture_->strings_.emplace_back(s);
  return index;
}

std::string_view CaptureBuilder::bytes_of(const EventRecord& ev) const {
  return event_bytes(file_->data(), file_->size(), ev);
}

std::int64_t CaptureBuilder::duration_of(const EventRecord& ev) const {
  return ev.duration_exact() ? ev.duration_ps() : event_duration_from_bytes(file_->data(), bytes_of(ev));
}

void CaptureBuilder::on_event(const Segment& seg, std::uint32_t line, const EventRecord& ev, EventClass cls) {
  const Plane& plane = capture_->planes_[seg.plane];
  switch (cls) {
    case EventClass::MemAlloc:
    case EventClass::MemDealloc: {
      const DecodedStats d = decode(file_->data(), bytes_of(ev), seg.stat_keys, *seg.stat_names);
      // The allocator is named by allocator_name (the BFC on GPU). The TPU runtime writes none; its
      // events carry index_on_host instead (0..3 in jax_tpu_v6e_inference, one per chip, next to the
      // planes /device:TPU:0..3), which is also the key XProf's memory_profile groups by. We key by it
      // and name the allocator "TPU_<n>" ("device_<n>" without TPU planes) once the whole capture is
      // read, so the name matches the device plane a user sees (finish_runtime()).
      std::string ordinal_key;
      std::string_view key = d.allocator_name;
      if (key.empty()) {
        std::optional<std::int64_t> ordinal;
        if (d.device_ordinal)
          ordinal = d.device_ordinal;
        else if (d.index_on_host)
          ordinal = d.index_on_host;
        ordinal_key = ordinal ? std::string("\x01") + std::to_string(*ordinal) : std::string("\x01?");
        key = ordinal_key;
      }
      auto it = allocator_index_.find(key);
      if (it == allocator_index_.end()) {
        const auto index = static_cast<std::uint32_t>(allocator_names_.size());
        it = allocator_index_.emplace(std::string(key), index).first;
        allocator_names_.emplace_back(key);
      }
      MemoryEvent m;
      m.time_ps = ev.start_ps();
      m.kind = cls == EventClass::MemAlloc ? MemoryEventKind::Allocation : MemoryEventKind::Deallocation;
      m.allocator = it->second;
      m.addr = static_cast<std::uint64_t>(d.addr.value_or(0));
      m.requested_bytes = d.requested.value_or(0);
      m.allocation_bytes = d.allocation.value_or(0);
      m.bytes_in_use = d.bytes_allocated.value_or(0);
      m.bytes_available = d.bytes_available.value_or(0);
      m.bytes_reserved = d.bytes_reserved.value_or(-1);  // XProf's reserved series has a gap there
      m.peak_bytes_in_use = d.peak.value_or(0);
      m.fragmentation = d.fragmentation.value_or(0.0);
      m.step_id = d.step_id.value_or(-1);
      m.line = line;
      m.tf_op = intern(d.tf_op);
      m.shape = intern(d.shape);
      // Growing past the size estimated up front frees the table the warmer may still be faulting in.
      if (capture_->memory_events_.size() == capture_->memory_events_.capacity()) warmer_.wait();
      capture_->memory_events_.push_back(m);
      return;
    }
    case EventClass::Retry:
      charge(sizeof(RetryEvent), "AllocatorRetry events");
      capture_->retries_.push_back(RetryEvent{ev.start_ps(), duration_of(ev), line});
      return;
    case EventClass::XlaModule:
    case EventClass::ExecuteHelper:
    case EventClass::Pjit: {
      std::string_view name = plane.event_name(ev.metadata_id());
      ExecutionSpan span;
      if (cls == EventClass::XlaModule) {
        span.kind = ExecutionKind::XlaModule;
        name.remove_suffix(std::string_view(":XLA GPU module").size());
      } else if (cls == EventClass::Pjit) {
        span.kind = ExecutionKind::PjitFunction;
        name = name.substr(13, name.size() - 14);
      } else {
        span.kind = ExecutionKind::ExecuteHelper;
      }
      charge(sizeof(ExecutionSpan) + name.size(), "execution spans");
      span.name = std::string(name);
      if (!seg.stat_keys.empty())
        span.program_id = decode(file_->data(), bytes_of(ev), seg.stat_keys, *seg.stat_names).program_id;
      span.time_ps = ev.start_ps();
      span.duration_ps = duration_of(ev);
      span.plane = seg.plane;
      span.line = line;
      grow_for_one(capture_->executions_);
      capture_->executions_.push_back(std::move(span));
      return;
    }
    case EventClass::Launch: {
      if (seg.stat_keys.empty()) return;
      const DecodedStats d = decode(file_->data(), bytes_of(ev), seg.stat_keys, *seg.stat_names);
      if (!d.correlation_id) return;
      charge(sizeof(LaunchEvent), "launch events");
      grow_for_one(capture_->launches_);
      capture_->launches_.push_back(
          LaunchEvent{ev.start_ps(), *d.correlation_id, d.device_id, d.program_id, seg.plane, line});
      return;
    }
    case EventClass::None:
      return;
  }
}

void CaptureBuilder::on_device_module(const Segment& seg, std::uint32_t line, const EventRecord& ev) {
  const std::string_view full = capture_->planes_[seg.plane].event_name(ev.metadata_id());
  charge(sizeof(ExecutionSpan) + full.size(), "execution spans");
  ExecutionSpan span;
  span.kind = ExecutionKind::DeviceModule;
  if (auto split = split_program_suffix(full)) {
    span.name = std::string(split->first);
    span.program_id = split->second;
  } else {
    span.name = std::string(full);
  }
  span.time_ps = ev.start_ps();
  span.duration_ps = duration_of(ev);
  span.plane = seg.plane;
  span.line = line;
  grow_for_one(capture_->executions_);
  capture_->executions_.push_back(std::move(span));
}

void CaptureBuilder::on_device_event(const Segment& seg, const EventRecord& ev) {
  if (!seg.device_program_stats) return;
  const DecodedStats d = decode(file_->data(), bytes_of(ev), seg.stat_keys, *seg.stat_names);
  std::optional<std::uint64_t> program = d.program_id;
  std::string_view module = d.hlo_module;
  if (!program && module.empty()) {
    // Some device events carry the program on their event metadata instead.
    const auto& md = capture_->planes_[seg.plane].event_metadata;
    if (auto it = md.find(ev.metadata_id()); it != md.end())
      for (const Stat& s : it->second.stats) {
        if (s.name == "program_id" && s.value.is_number()) program = s.value.as_uint();
        if (s.name == "hlo_module") module = s.value.as_string();
      }
  }
  if (!program && module.empty()) return;
  charge(sizeof(DeviceProgramEvent), "device events");
  grow_for_one(capture_->device_events_);
  capture_->device_events_.push_back(DeviceProgramEvent{ev.start_ps(), program.value_or(0), intern(module),
                                                        seg.plane, d.correlation_id.value_or(0),
                                                        duration_of(ev), intern(d.hlo_op)});
}

}  // namespace oomscope::capture
