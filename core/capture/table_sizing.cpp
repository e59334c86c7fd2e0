// Sizing the scan's tables before they are filled: a cheap first walk over a plane's XLine entries
// (line_shape) and exact reservations that the page warmer faults in (reserve_table).

#include <algorithm>
#include <cstdint>

#include "core/capture/detail/capture_builder.h"
#include "core/capture/detail/xplane_fields.h"

namespace oomscope::capture {

using wire::Field;
using wire::WireReader;
using wire::WireType;

namespace {
// An event's metadata id as its first field (where writers put it): the tag byte that starts such an event.
constexpr std::uint8_t kMetadataIdTag = wire::tag_byte(xf::XEvent::kMetadataIdFieldNumber, WireType::Varint);
}  // namespace

// A table (a line's events, the memory events) grows exactly: the first walk over a plane counted every
// line's events, so a table is sized once and never copied. Event tables of big captures run to hundreds
// of MiB, and faulting them in 4 KiB at a time used to be most of the reader's time; so the warmer's thread
// faults a large table's pages in while the scan fills it. No transparent huge pages: asking for them made
// the first read after a while 1.7x slower (the kernel compacts memory to find them), for a 20 % gain later.
template <typename T>
void reserve_table(std::vector<T>& table, std::size_t extra, PageWarmer& warmer, bool warm) {
  const std::size_t needed = table.size() + extra;
  if (needed <= table.capacity()) return;
  if (table.capacity() != 0) warmer.wait();  // the old block is freed below: the warmer must be done with it
  // Exact the first time; a table that grows again (a line continued in a later plane entry, as in a capture
  // joined to itself) grows by half at least, so that N entries cost O(N) copying, not O(N^2).
  // A table sized from an upper bound (not warmed) doubles instead: on an 8-GPU capture it grows once per
  // device plane, and each growth moves it.
  const std::size_t grown = table.capacity() + (warm ? table.capacity() / 2 : table.capacity());
  table.reserve(table.capacity() == 0 ? needed : std::max(needed, grown));
  if (!warm) return;
  constexpr std::uintptr_t kAlign = 2u << 20;  // the warmer works in slices of this size
  const auto begin = reinterpret_cast<std::uintptr_t>(table.data());
  const std::uintptr_t end = begin + table.capacity() * sizeof(T);
  const std::uintptr_t first = (begin + kAlign - 1) & ~(kAlign - 1), last = end & ~(kAlign - 1);
  if (last > first) warmer.warm(reinterpret_cast<void*>(first), last - first);
}

// The id of an XLine entry and its number of events, read by skipping over the events. It walks the
// entry's fields exactly as scan_line() does, so the id is the one the scan will find. It never throws:
// bad bytes are left for the scan to report, at the place and in the order it always has.
// When the plane has allocator events, it also estimates their number from each event's first field (the
// metadata id, where writers put it), so that the memory-event table can be sized once as well.
LineShape line_shape(const WireReader& parent, std::string_view payload, const IdTable<EventClass>& classes,
                     PassWindow& window) {
  LineShape shape;
  const auto rest = [payload](const std::uint8_t* from) {
    return payload.substr(static_cast<std::size_t>(reinterpret_cast<const char*>(from) - payload.data()));
  };
  const auto on_varint = [&](std::uint32_t number, std::uint64_t value) {
    if (number == xf::XLine::kIdFieldNumber) shape.id = wire::as_int64(value);
  };
  const auto on_len = [&](std::uint32_t number, std::string_view event) {
    if ((number == xf::XLine::kNameFieldNumber || number == xf::XLine::kDisplayNameFieldNumber) &&
        !event.empty())
      shape.named = true;
    if (number == xf::XLine::kNameFieldNumber && event == "XLA Modules") shape.module_line = true;
    if (number != xf::XLine::kEventsFieldNumber) return;
    if (event.empty()) {
      ++shape.empty_events;
      return;
    }
    if ((++shape.events & 4095) == 0) window.advance(parent.offset_of(event));
    if (!classes.empty() && event.size() >= 2 && static_cast<std::uint8_t>(event[0]) == kMetadataIdTag) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(event.data()) + 1;
      std::uint64_t id = 0;
      if (quick_varint(p, p + event.size() - 1, id)) {
        switch (classes.find(wire::as_int64(id))) {
          case EventClass::MemAlloc:
          case EventClass::MemDealloc:
            ++shape.memory_events;
            break;
          case EventClass::Launch:
            ++shape.launches;
            break;
          case EventClass::XlaModule:
          case EventClass::ExecuteHelper:
          case EventClass::Pjit:
            ++shape.executions;
            break;
          default:
            break;
        }
      }
    }
  };
  const auto* begin = reinterpret_cast<const std::uint8_t*>(payload.data());
  const std::uint8_t* stopped = quick_walk(begin, begin + payload.size(), on_varint, on_len);
  try {
    WireReader r = parent.sub(rest(stopped));
    while (!r.done()) {
      const Field f = r.field();
      if (f.type == WireType::Len)
        on_len(f.number, r.bytes());
      else if (f.type == WireType::Varint)
        on_varint(f.number, r.varint());
      else
        r.skip(f.type);
    }
    shape.ok = true;
  } catch (const wire::WireError&) {
    shape.ok = false;
  }
  return shape;
}

template void reserve_table(std::vector<EventRecord>& table, std::size_t extra, PageWarmer& warmer,
                            bool warm);
template void reserve_table(std::vector<MemoryEvent>& table, std::size_t extra, PageWarmer& warmer,
                            bool warm);
template void reserve_table(std::vector<LaunchEvent>& table, std::size_t extra, PageWarmer& warmer,
                            bool warm);
template void reserve_table(std::vector<ExecutionSpan>& table, std::size_t extra, PageWarmer& warmer,
                            bool warm);
template void reserve_table(std::vector<DeviceProgramEvent>& table, std::size_t extra, PageWarmer& warmer,
                            bool warm);

}  // namespace oomscope::capture
