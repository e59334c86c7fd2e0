// Capture and Plane accessors, and the on-demand decoding of one event's stats.

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/capture/detail/capture_internals.h"
#include "core/capture/mapped_file.h"
#include "hlo.pb.h"

namespace oomscope::capture {

namespace {
// EventRecord's duration code: bits 38-39 the unit (ps, ns, us, ms), bits 0-37 the count of them.
constexpr std::uint64_t kDurationUnit[4] = {1, 1000, 1000000, 1000000000};
constexpr std::uint64_t kDurationCount = (std::uint64_t{1} << 38) - 1;
}  // namespace

void EventRecord::set_long_duration_ps(std::int64_t d) {
  std::uint64_t code = 0;
  bool exact = d >= 0;
  if (d > 0) {
    const auto u = static_cast<std::uint64_t>(d);
    int unit = 0;  // the smallest unit that divides it and holds it
    while (unit < 4 && (u % kDurationUnit[unit] != 0 || u / kDurationUnit[unit] > kDurationCount)) ++unit;
    if (unit == 4) {  // none: rounded up, in the smallest unit that holds it (ms holds any int64)
      exact = false;
      unit = 0;
      while ((u + kDurationUnit[unit] - 1) / kDurationUnit[unit] > kDurationCount) ++unit;
    }
    const std::uint64_t count = (u + kDurationUnit[unit] - 1) / kDurationUnit[unit];
    code = static_cast<std::uint64_t>(unit) << 38 | count;
  }
  packed_lo_ = static_cast<std::uint32_t>(code);
  packed_hi_ = (packed_hi_ & ~0xffu) | static_cast<std::uint32_t>(code >> 32);
  offset_ = exact ? (offset_ & kOffsetMask) : (offset_ | ~kOffsetMask);
}

std::int64_t EventRecord::long_duration_ps(std::uint64_t code) {
  const std::uint64_t unit = kDurationUnit[code >> 38], count = code & kDurationCount;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(count > kMax / unit ? kMax : count * unit);  // a rounded-up ms may pass it
}

Capture::Capture() = default;
Capture::~Capture() = default;

bool Capture::file_shrank() const {
  if (!mapping_) return false;
  if (mapping_->shrank()) return true;
  if (!mapping_->mapped()) return false;
  // The same file (a replaced or removed one leaves the mapping intact), now shorter than what was read.
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return false;
  return static_cast<std::uint64_t>(st.st_dev) == mapping_->device() &&
         static_cast<std::uint64_t>(st.st_ino) == mapping_->inode() &&
         static_cast<std::uint64_t>(st.st_size) < mapping_->size();
}

std::size_t Plane::event_count() const {
  std::size_t n = 0;
  for (const Line& l : lines) n += l.events.size();
  return n;
}

std::string_view Plane::event_name(std::int64_t metadata_id) const {
  auto it = event_metadata.find(metadata_id);
  return it == event_metadata.end() ? std::string_view() : std::string_view(it->second.name);
}

const Stat* Plane::find_stat(std::string_view name) const {
  for (const Stat& s : stats)
    if (s.name == name) return &s;
  return nullptr;
}

const Plane* Capture::find_plane(std::string_view name) const {
  for (const Plane& p : planes_)
    if (p.name == name) return &p;
  return nullptr;
}

std::size_t Capture::event_count() const {
  std::size_t n = 0;
  for (const Plane& p : planes_) n += p.event_count();
  return n;
}

const Module* Capture::find_module(std::string_view name_or_id) const {
  for (const Module& m : modules_)
    if (m.name == name_or_id || m.metadata_name == name_or_id) return &m;
  std::uint64_t id = 0;
  const char* end = name_or_id.data() + name_or_id.size();
  auto [ptr, ec] = std::from_chars(name_or_id.data(), end, id);
  if (ec == std::errc() && ptr == end && !name_or_id.empty())
    for (const Module& m : modules_)
      if (m.program_id == id) return &m;
  return nullptr;
}

std::vector<Stat> Capture::event_stats(const Plane& plane, const EventRecord& event) const {
  std::vector<Stat> out;
  if (!mapping_) return out;
  const std::string_view bytes = event_bytes(mapping_->data(), mapping_->size(), event);
  if (bytes.empty()) return out;
  // The stat ids in the event bytes belong to the plane entry the event was written in.
  const std::map<std::int64_t, std::string>* names = &plane.stat_metadata;
  if (internals_) {
    const auto index = static_cast<std::size_t>(&plane - planes_.data());
    if (index < planes_.size() && index < internals_->segments.size() &&
        internals_->segments[index].size() > 1) {
      // Segments are in file order: the last one that begins at or before the event holds it.
      const auto& segs = internals_->segments[index];
      auto it = std::upper_bound(segs.begin(), segs.end(), std::uint64_t{event.offset()},
                                 [](std::uint64_t off, const PlaneSegment& seg) { return off < seg.begin; });
      if (it != segs.begin() && event.offset() < std::prev(it)->end) names = &std::prev(it)->stat_names;
    }
  }
  const auto* begin = reinterpret_cast<const std::uint8_t*>(bytes.data());
  wire::WireReader r(mapping_->data(), begin, begin + bytes.size());
  try {
    for_each_raw_stat(r, 4, [&](const RawStat& s) { out.push_back(to_stat(s, *names)); });
  } catch (const wire::WireError&) {
    // The scan already walked these bytes' outer structure; a damaged stat inside stops the list here.
  }
  return out;
}

}  // namespace oomscope::capture
