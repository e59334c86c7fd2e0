// host_segments / host_traces: the pinned host allocator's segments and trace, written beside the device
// ones by the newest PyTorch when _record_memory_history(record_pinned_host_memory=True) was on. Their
// items are taken to have the device lists' shape (segments with total_size, allocated_size and blocks;
// trace entries with an action); the lists are walked one level deep only, so a hostile tree cannot loop.

#include "core/snapshot/detail/snapshot_extras.h"

namespace oomscope::snapshot {

namespace {

void read_host_segment(const PickleTree& t, Ref seg, HostMemory& out) {
  if (!t.is_dict(seg) || !t.get(seg, "total_size")) {
    ++out.unreadable;
    return;
  }
  ++out.segments;
  out.reserved += t.as_int(*t.get(seg, "total_size")).value_or(0);
  if (auto a = t.get(seg, "allocated_size")) out.allocated += t.as_int(*a).value_or(0);
  if (auto blocks = t.get(seg, "blocks"); blocks && t.is_list(*blocks))
    t.for_each(*blocks, [&](Ref b) {
      if (!t.is_dict(b)) return;
      ++out.blocks;
      if (auto st = t.get(b, "state")) {
        const auto s = t.as_str(*st).value_or("inactive");
        out.active_blocks += s != "inactive";
      }
    });
}

void count_host_entries(const PickleTree& t, Ref list, HostMemory& out, bool nested_ok) {
  t.for_each(list, [&](Ref e) {
    if (t.record_of(e) || (t.is_dict(e) && t.get(e, "action")))  // the parser may take it as a record
      ++out.trace_entries;
    else if (nested_ok && t.is_list(e))
      count_host_entries(t, e, out, false);  // one list per device, like device_traces
    else
      ++out.unreadable;
  });
}

}  // namespace

void read_host_memory(const PickleTree& t, Ref root, HostMemory& out) {
  if (auto segs = t.get(root, "host_segments")) {
    out.present = true;
    if (t.is_list(*segs))
      t.for_each(*segs, [&](Ref s) { read_host_segment(t, s, out); });
    else
      ++out.unreadable;
  }
  if (auto traces = t.get(root, "host_traces")) {
    out.present = true;
    if (t.is_list(*traces))
      count_host_entries(t, *traces, out, true);
    else
      ++out.unreadable;
  }
}

}  // namespace oomscope::snapshot
