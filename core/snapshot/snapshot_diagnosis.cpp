// Diagnosis lines for a snapshot: why the OOM happened (fragmentation or a full device), what the peak
// was made of, and what to change, each fix with an estimated saving. Figures are labelled: read (copied
// from the file), measured (counted over the trace/blocks), derived (computed from those).

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>

#include "core/snapshot/snapshot_analysis.h"
#include "core/util/bytes.h"

namespace oomscope::snapshot {

namespace {

using analysis::DiagnosisLine;
using analysis::Fix;
using analysis::Provenance;

Fix make_fix(std::string action, std::optional<std::int64_t> saving, std::string note, std::string cost) {
  Fix f;
  f.action = std::move(action);
  f.saving_bytes = saving;
  f.saving_note = std::move(note);
  f.cost = std::move(cost);
  return f;
}

std::string b(std::int64_t v) { return format_bytes(v); }
std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * x);
  return buf;
}
std::string count(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::int64_t category_bytes(const DeviceAnalysis& d, Category c) {
  for (const CategoryTotal& t : d.categories_at_peak)
    if (t.category == c) return t.bytes;
  return 0;
}

// Gradients live at the peak that a previous step left behind: allocated in a backward pass and followed,
// before the peak, by an allocation of a forward pass (a new step began while they stayed). Gradients of
// the backward the peak is in are needed there; zero_grad(set_to_none=True) frees only the carried ones.
struct CarriedGradients {
  std::int64_t bytes = 0;
  std::size_t count = 0;
  std::int64_t forward_entry = -1;  // the last forward allocation before the peak
};

CarriedGradients carried_gradients(const Snapshot& snap, const FrameTraits& traits, const DeviceAnalysis& d) {
  CarriedGradients c;
  const auto dev = static_cast<std::size_t>(d.device);
  if (dev >= snap.device_traces.size() || d.timeline.peak_index < 0) return c;
  const auto& trace = snap.device_traces[dev];
  const auto end = std::min<std::size_t>(static_cast<std::size_t>(d.timeline.peak_index) + 1, trace.size());
  for (std::size_t i = end; i-- > 0;) {
    if (trace[i].action == Action::Alloc && is_forward_stack(snap, traits, trace[i].frames)) {
      c.forward_entry = static_cast<std::int64_t>(i);
      break;
    }
  }
  if (c.forward_entry < 0) return c;
  for (const PeakAllocation& a : d.at_peak) {
    if (a.category.category != Category::Gradients || a.alloc_index < 0 || a.alloc_index >= c.forward_entry)
      continue;
    c.bytes += a.bytes;
    ++c.count;
  }
  return c;
}

// Fixes that shrink the peak, from what was live at it.
std::vector<Fix> peak_fixes(const Snapshot& snap, const FrameTraits& traits, const DeviceAnalysis& d) {
  std::vector<Fix> fixes;
  const std::int64_t peak = d.timeline.peak_bytes;
  const std::int64_t act = category_bytes(d, Category::Activations);
  const std::int64_t params = category_bytes(d, Category::Parameters);
  if (params > 0 && share(params, peak) >= 0.5)
    fixes.push_back(
        make_fix("keep the weights in lower precision (fp32 -> bf16, or bf16 -> int8 for inference) or "
                 "offload part of them to the CPU",
                 params / 2, "half of the " + b(params) + " allocated while building the model",
                 "precision loss to validate, or host-device copies for offloaded weights"));
  if (act > 0 && share(act, peak) >= 0.2) {
    fixes.push_back(
        make_fix("activation checkpointing (torch.utils.checkpoint) on the repeated blocks of the model",
                 act / 2, "about half of the " + b(act) + " of activations live at the peak",
                 "one extra forward pass (~30 % more compute)"));
    fixes.push_back(make_fix("halve the micro-batch and accumulate gradients over 2 micro-steps", act / 2,
                             "activations scale with the batch: half of " + b(act),
                             "two forward/backward passes per optimizer step"));
  }
  const CarriedGradients carried = carried_gradients(snap, traits, d);
  if (carried.bytes > 0 && share(carried.bytes, peak) >= 0.05)
    fixes.push_back(make_fix(
        "optimizer.zero_grad(set_to_none=True) so gradients are freed, not zeroed, between steps",
        carried.bytes,
        "the " + b(carried.bytes) + " (" + std::to_string(carried.count) +
            " allocations) made in an earlier backward() and still live at the peak, after a forward pass "
            "allocated again (trace entry " +
            std::to_string(carried.forward_entry) + ")",
        "none (the default since PyTorch 2.0)"));
  return fixes;
}

std::string composition(const DeviceAnalysis& d) {
  std::string s;
  for (const CategoryTotal& t : d.categories_at_peak) {
    if (!s.empty()) s += ", ";
    s += t.label() + " " + b(t.bytes) + " (" + pct(share(t.bytes, d.timeline.peak_bytes)) + ")";
  }
  return s;
}

// The free space that could serve a failed request: the blocks of its pool (segment_pool_id) and of its
// size class (the small pool serves requests up to 1 MiB, the large pool the rest; a private pool has both).
// The trace does not name the pool of a request: PyTorch sends an allocation to a private pool while a CUDA
// graph capture or a MemPool context is active for its stream, so the pool is taken from the last
// allocation on the same stream before the failure (the pool of the segment it lies in), else the default.
struct ServingPool {
  PoolId id{0, 0};
  bool large = true;
  std::int64_t evidence_index = -1;  // the allocation whose segment named a private pool
  std::int64_t free = 0, largest = 0;
  std::int64_t other_pools_free = 0, other_pools_largest = 0;  // free in the other pools' segments
  std::string name() const {
    PoolSummary p;
    p.id = id;
    return pool_name(p);
  }
  bool is_default() const { return id.first == 0 && id.second == 0; }
};

ServingPool serving_pool(const Snapshot& snap, const DeviceAnalysis& d, const OomPoint& o) {
  ServingPool sp;
  sp.large = o.requested > (1 << 20);
  const AllocatorState& st = d.state;
  const auto dev = static_cast<std::size_t>(d.device);
  const auto segment_of = [&](std::uint64_t addr) -> const StateSegment* {
    auto it = std::upper_bound(st.segments.begin(), st.segments.end(), addr,
                               [](std::uint64_t a, const StateSegment& s) { return a < s.address; });
    if (it == st.segments.begin()) return nullptr;
    --it;
    return addr < it->address + static_cast<std::uint64_t>(it->size) ? &*it : nullptr;
  };
  if (dev < snap.device_traces.size() && o.index >= 0) {
    const auto& trace = snap.device_traces[dev];
    const auto oom_at = static_cast<std::size_t>(std::min<std::int64_t>(o.index, std::ssize(trace) - 1));
    for (std::size_t i = oom_at; i-- > 0;) {
      const TraceEntry& e = trace[i];
      if (e.action != Action::Alloc || e.stream != trace[oom_at].stream) continue;
      const StateSegment* s = segment_of(e.addr);
      if (!s || !s->pool_known) continue;
      sp.id = s->pool;
      if (!sp.is_default()) sp.evidence_index = static_cast<std::int64_t>(i);
      break;
    }
  }
  // Segments re-created from segment_free entries have no pool id; without private pools they are the
  // default pool's.
  const bool only_default = !has_private_pools(d.pools);
  for (const StateSegment& s : st.segments) {
    if (s.pool_known ? s.pool == sp.id : only_default && sp.is_default()) {
      if (s.large != sp.large) continue;  // the other size class of the same pool
      sp.free += s.free_bytes;
      sp.largest = std::max(sp.largest, s.largest_free);
    } else {
      sp.other_pools_free += s.free_bytes;
      sp.other_pools_largest = std::max(sp.other_pools_largest, s.largest_free);
    }
  }
  return sp;
}

// What holds the device's reserved memory, when no rule about an OOM, a full cache or over-reservation
// applies: a report never ends in "nothing to report" while memory is held.
DiagnosisLine state_line(const std::string& dev, const DeviceAnalysis& d, bool expandable) {
  const AllocatorState& st = d.state;
  DiagnosisLine l;
  l.rule = "memory-held";
  l.provenance = Provenance::Measured;
  l.finding = dev + ": " + b(st.active_allocated_bytes) + " of " + b(st.reserved) +
              " reserved is allocated (" + pct(share(st.active_allocated_bytes, st.reserved)) + ")" +
              (st.pending_free_blocks ? ", " + b(st.pending_free_bytes) + " pending free" : std::string()) +
              ", " + b(st.free_bytes) + " cached free (largest free block " + b(st.largest_free) + ")";
  std::string cause;
  const PoolSummary* biggest_private = nullptr;
  for (const PoolSummary& p : d.pools)
    if (p.known && (p.id.first != 0 || p.id.second != 0) &&
        (!biggest_private || p.reserved > biggest_private->reserved))
      biggest_private = &p;
  if (biggest_private)
    cause =
        pool_name(*biggest_private) + " reserves " + b(biggest_private->reserved) + " (" +
        pct(share(biggest_private->reserved, st.reserved)) + " of reserved) and holds " +
        b(biggest_private->allocated) +
        " allocated: memory a CUDA graph or a MemPool keeps for itself (vLLM-style engines keep weights and "
        "the KV cache in pools of their own); its free blocks serve only that pool";
  if (d.trace_entries == 0) {
    if (!cause.empty()) cause += "; ";
    cause += "with no trace, whether this was the run's peak, and what the next request was, cannot be known";
    l.fixes.push_back(make_fix(
        "torch.cuda.memory._record_memory_history(max_entries=100000) before the step that fails, and "
        "_dump_snapshot() in an OOM observer (torch._C._cuda_attach_out_of_memory_observer)",
        std::nullopt, "records the allocations leading to the failure",
        "slower allocations while recording"));
  } else if (d.timeline.peak_index >= 0) {
    if (!cause.empty()) cause += "; ";
    cause += "the active-memory peak over the trace was " + b(d.timeline.peak_bytes) + " at trace entry " +
             std::to_string(d.timeline.peak_index);
  }
  if (cause.empty()) cause = "live tensors hold the allocated bytes; the free bytes stay cached for reuse";
  if (expandable) cause += "; expandable_segments is on";
  l.cause = cause;
  return l;
}

}  // namespace

std::vector<DiagnosisLine> diagnose_snapshot(const Snapshot& snap, const SnapshotReport& r) {
  const FrameTraits traits = frame_traits(snap);  // once for every device's fixes
  std::vector<DiagnosisLine> out;
  for (const DeviceAnalysis& d : r.devices) {
    const std::string dev = "device " + std::to_string(d.device);
    const AllocatorState& st = d.state;
    const std::size_t lines_before = out.size();
    if (d.oom) {
      const OomPoint& o = *d.oom;
      const ServingPool sp = serving_pool(snap, d, o);
      const std::int64_t pool_largest = sp.largest;
      const std::string where =
          std::string(sp.large ? "large-pool" : "small-pool") + " block" +
          (has_private_pools(d.pools) || !sp.is_default() ? " of the " + sp.name() : "");
      std::string others;
      if (sp.other_pools_free > 0 && (has_private_pools(d.pools) || !sp.is_default()))
        others = "; the " + b(sp.other_pools_free) + " free in other pools' segments (largest " +
                 b(sp.other_pools_largest) + ") cannot serve it";
      if (sp.evidence_index >= 0)
        others += "; the request's pool is that of the previous allocation on its stream (trace entry " +
                  std::to_string(sp.evidence_index) + "), since the trace does not name it";
      DiagnosisLine l;
      l.provenance = Provenance::Read;
      l.finding = dev + ": the allocator failed to allocate " + b(o.requested) + " (trace entry " +
                  std::to_string(o.index) + ") with " + b(o.device_free) + " free on the device";
      if (o.requested <= sp.free + o.device_free && o.requested > pool_largest &&
          o.requested > o.device_free) {
        l.rule = "oom-fragmentation";
        l.cause = b(sp.free) + " was free in the " + (sp.large ? "large-pool" : "small-pool") +
                  " blocks that could serve it but in pieces: the largest free " + where + " was " +
                  b(pool_largest) + " (fragmentation " +
                  pct(sp.free > 0 ? 1.0 - share(pool_largest, sp.free) : 0.0) + ")";
        l.cause += others;
        l.cause += " [measured]";
        if (!snap.expandable_segments)
          l.fixes.push_back(make_fix("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", sp.free,
                                     "the pool's free space becomes one growable range",
                                     "none known for most workloads"));
        l.fixes.push_back(make_fix("PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:" +
                                       std::to_string(std::max<std::int64_t>(1, pool_largest >> 20)),
                                   std::nullopt,
                                   "keeps big cached blocks from being split for small requests",
                                   "more cudaMalloc calls"));
      } else {
        l.rule = "oom-full";
        l.cause = "live allocations held " + b(st.active_allocated_bytes) + " of " + b(st.reserved) +
                  " reserved" +
                  (st.pending_free_blocks
                       ? ", " + b(st.pending_free_bytes) + " more were freed but pending a stream event"
                       : std::string()) +
                  "; the cache had " + b(st.free_bytes) + " free (largest free " + where + " " +
                  b(pool_largest) + ")";
        l.cause += others;
        l.cause += " [measured]";
        l.fixes = peak_fixes(snap, traits, d);
      }
      l.confirm = "the Allocator State page at the OOM marker shows every segment and block";
      out.push_back(std::move(l));
    } else if (st.reserved >= (1ll << 30) && share(st.free_bytes, st.reserved) < 0.01) {
      DiagnosisLine l;
      l.rule = "cache-full";
      l.provenance = Provenance::Measured;
      l.finding = dev + ": only " + b(st.free_bytes) + " of " + b(st.reserved) +
                  " reserved is free in the cache (largest free block " + b(st.largest_free) +
                  "); any larger request needs a new cudaMalloc";
      l.cause = d.trace_entries == 0 || d.oom
                    ? "live tensors fill the reserved memory"
                    : "live tensors fill the reserved memory; the trace holds no 'oom' entry, so "
                      "the failed request and the free device memory are not in this file";
      if (!d.at_peak.empty() && !d.at_peak.front().where.empty())
        l.cause += "; the largest live allocation (" + b(d.at_peak.front().bytes) + ") comes from " +
                   d.at_peak.front().where;
      l.fixes = peak_fixes(snap, traits, d);
      out.push_back(std::move(l));
    }
    const std::int64_t cached_free = st.free_bytes;
    const bool state_explained = out.size() > lines_before;
    if (cached_free >= (256ll << 20) && share(cached_free, st.reserved) >= 0.25) {
      // Free memory in two kinds: whole segments with no live block (caching: kept for the next step and
      // freed by the allocator itself before an out-of-memory error) and holes inside segments that hold live
      // blocks (what a setting can change).
      std::int64_t whole_free = 0, holes = 0, largest_hole = 0;
      std::size_t whole_count = 0, holed = 0;
      for (const StateSegment& s : st.segments) {
        if (s.blocks.empty()) {
          whole_free += s.size;
          ++whole_count;
        } else if (s.free_bytes > 0) {
          holes += s.free_bytes;
          largest_hole = std::max(largest_hole, s.largest_free);
          ++holed;
        }
      }
      DiagnosisLine l;
      l.rule = "over-reserved";
      l.provenance = Provenance::Measured;
      l.finding = dev + ": " + b(cached_free) + " of " + b(st.reserved) + " reserved is cached and free (" +
                  pct(share(cached_free, st.reserved)) + "): " + b(whole_free) + " in " +
                  count(whole_count, "wholly free segment", "wholly free segments") + ", " + b(holes) +
                  " in holes inside " + count(holed, "segment", "segments") + " with live blocks" +
                  (holes > 0 ? " (largest hole " + b(largest_hole) + ")" : std::string());
      l.cause =
          whole_free >= holes
              ? "mostly caching, not fragmentation: the allocator keeps freed segments for reuse and "
                "releases "
                "them itself (and retries) before an out-of-memory error"
              : "the caching allocator keeps freed blocks for reuse; a hole inside a segment serves only "
                "requests that fit in it";
      if (!snap.expandable_segments && holes > 0)
        l.fixes.push_back(
            make_fix("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", holes,
                     "at most the holes inside segments with live blocks; wholly free segments stay "
                     "cached under any setting; `oomscope-cli whatif` replays the trace for the figure",
                     "none known for most workloads"));
      if (whole_free > 0)
        l.fixes.push_back(
            make_fix("torch.cuda.empty_cache() between phases (e.g. after loading, before training)",
                     whole_free, "segments with no live block go back to the driver",
                     "later cudaMalloc calls (milliseconds each)"));
      out.push_back(std::move(l));
    }
    if (!state_explained && out.size() == lines_before && st.reserved > 0)
      out.push_back(state_line(dev, d, snap.expandable_segments));
    if (d.trace_entries > 0 && d.timeline.peak_bytes > 0) {
      DiagnosisLine l;
      l.rule = "peak-composition";
      l.provenance = Provenance::Derived;
      l.finding = dev + ": the active-memory peak is " + b(d.timeline.peak_bytes) +
                  (d.timeline.peak_index >= 0 ? " at trace entry " + std::to_string(d.timeline.peak_index)
                                              : std::string(" at the start of the trace")) +
                  ": " + composition(d);
      l.cause = "categories are guessed from each allocation's stack (rules on the Top allocations page)";
      if (!d.oom) l.fixes = peak_fixes(snap, traits, d);
      out.push_back(std::move(l));
    }
    if (d.trace_entries > 0 && d.timeline.ghosts > 0) {
      DiagnosisLine l;
      l.rule = "allocated-before-trace";
      l.provenance = Provenance::Measured;
      l.finding = dev + ": " + std::to_string(d.timeline.ghosts) + " live blocks (" +
                  b(d.timeline.ghost_bytes) + ") were allocated before the trace began (" +
                  pct(share(d.timeline.ghost_bytes, d.timeline.peak_bytes)) + " of the peak)";
      l.cause = "recording started after they were allocated, or the ring buffer dropped their alloc entries";
      l.fixes.push_back(
          make_fix("call torch.cuda.memory._record_memory_history(max_entries=...) before the model is built",
                   std::nullopt, "their stacks become known", "slower allocations while recording"));
      out.push_back(std::move(l));
    }
    if (d.timeline.unmatched_frees > 0) {
      DiagnosisLine l;
      l.rule = "trace-wrapped";
      l.provenance = Provenance::Measured;
      l.finding = dev + ": " + count(d.timeline.unmatched_frees, "free", "frees") + " (" +
                  b(d.timeline.unmatched_free_bytes) +
                  (d.timeline.unmatched_frees == 1 ? ") has" : ") have") + " no alloc in the trace";
      l.cause = "the allocation happened before recording began or fell out of the trace ring buffer";
      out.push_back(std::move(l));
    }
  }
  return out;
}

}  // namespace oomscope::snapshot
