// What keeps the reader's memory and output bounded on hostile or damaged input (capture_builder.h):
// a memory budget charged before tables grow, repeated texts kept once with a count, byte-identical plane
// entries (a capture joined to itself) skipped, and the notes that say what was summarised.

#include <algorithm>
#include <cstring>

#include "core/capture/detail/capture_builder.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::capture {

namespace {

std::string exact(std::uint64_t n) { return format_bytes_exact(static_cast<std::int64_t>(n)); }

std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 80;
  std::string out = "\"" + std::string(s.substr(0, kMax)) + (s.size() > kMax ? "...\"" : "\"");
  return out;
}

}  // namespace

void CaptureBuilder::charge(std::uint64_t bytes, const char* what) {
  if (budget_ == 0) budget_ = kBudgetTimesFile * file_->size() + kBudgetFloor;
  charged_ += bytes;
  if (charged_ <= budget_) return;
  throw Error(ErrorKind::TooLarge, path_,
              "the capture is implausible: loading it would take more than " + format_bytes(budget_) +
                  " of memory, " + std::to_string(kBudgetTimesFile) +
                  " times its size and more (the limit was passed at its " + what +
                  "; real captures need about their own size); it was probably crafted or damaged");
}

void CaptureBuilder::add_text(RepeatedText& list, std::string_view text) {
  ++list.total;
  if (auto it = list.counts.find(text); it != list.counts.end()) {
    ++it->second;
    return;
  }
  if (list.kept->size() >= kMaxDistinct) {
    ++list.dropped;
    return;
  }
  list.counts.emplace(text, 1);
  list.kept->emplace_back(text);
}

bool CaptureBuilder::repeated_plane_entry(std::uint32_t plane, std::string_view name,
                                          std::string_view payload) {
  // Candidates share the size and a sample of the bytes; at most kCompare of them are compared in full, so
  // N entries cost O(N) comparisons whatever the file holds.
  constexpr std::size_t kSample = 256, kCompare = 4;
  const std::hash<std::string_view> h;
  std::size_t sample = h(payload.substr(0, kSample));
  if (payload.size() > 2 * kSample) sample = sample * 31 + h(payload.substr(payload.size() / 2, kSample));
  if (payload.size() > kSample) sample = sample * 31 + h(payload.substr(payload.size() - kSample));
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(payload.data());
  auto& earlier = plane_entries_[EntryKey{plane, payload.size(), sample}];
  for (std::size_t i = 0; i < earlier.size() && i < kCompare; ++i)
    if (std::memcmp(earlier[i], bytes, payload.size()) == 0) {
      ++repeated_planes_[std::string(name)];
      return true;
    }
  ++distinct_plane_entries_[std::string(name)];
  if (earlier.size() >= kCompare) return false;
  charge(sizeof(void*) + 64, "plane entries");
  earlier.push_back(bytes);
  return false;
}

void CaptureBuilder::finish_notes() {
  auto& notes = capture_->reader_notes_;
  const auto repeats = [&](const RepeatedText& list, const char* what, const char* what_plural) {
    if (list.total == list.kept->size()) return;
    std::vector<std::pair<std::string_view, std::uint64_t>> repeated;
    for (const std::string& text : *list.kept) {
      const std::uint64_t n = list.counts.at(text);
      if (n > 1) repeated.emplace_back(text, n);
    }
    for (std::size_t i = 0; i < repeated.size() && i < 5; ++i)
      notes.push_back(std::string("the ") + what + " " + quoted(repeated[i].first) + " is listed " +
                      exact(repeated[i].second) + " times; it is kept once");
    if (repeated.size() > 5)
      notes.push_back(exact(repeated.size() - 5) + " more " + what_plural +
                      " are listed several times; each is kept once");
    if (list.dropped > 0)
      notes.push_back("the capture lists " + exact(list.total) + " " + what_plural + "; the first " +
                      std::to_string(kMaxDistinct) + " different ones are kept and " + exact(list.dropped) +
                      " further ones were skipped");
  };
  repeats(errors_, "capture error", "capture errors");
  repeats(warnings_, "capture warning", "capture warnings");
  repeats(hostnames_, "hostname", "hostnames");
  // One line per number of copies, however many planes were copied (a joined file copies them all).
  std::map<std::uint64_t, std::vector<std::string_view>> by_copies;
  for (const auto& [name, copies] : repeated_planes_) by_copies[copies].push_back(name);
  for (const auto& [copies, names] : by_copies) {
    std::string which;
    for (std::size_t i = 0; i < names.size() && i < 4; ++i) which += (i ? ", " : "") + quoted(names[i]);
    if (names.size() > 4) which += ", ...";
    notes.push_back((names.size() == 1 ? "the plane " + which
                                       : "each of the " + exact(names.size()) + " planes " + which) +
                    " appears " + exact(copies + 1) +
                    " times with identical bytes; the copies were ignored, so no figure counts them twice "
                    "(the file looks like one capture joined to itself)");
  }
  // Different captures concatenated: XSpace's repeated fields simply add up, so the file lists several
  // hostnames and holds the same plane several times with different contents.
  if (hostnames_.total > 1)
    for (const char* plane : {"/host:metadata", "/host:CPU"})
      if (auto it = distinct_plane_entries_.find(std::string_view(plane));
          it != distinct_plane_entries_.end() && it->second > 1) {
        notes.push_back("the file seems to hold " + exact(it->second) +
                        " different captures joined together (the plane " + quoted(plane) + " appears in " +
                        exact(it->second) + " entries that differ, and " + exact(hostnames_.total) +
                        " hostnames are listed): they are read as one run, so their events, executions and "
                        "figures mix; report each capture from its own file");
        break;
      }
  if (empty_events_ > 0)
    notes.push_back(exact(empty_events_) + " empty events (no metadata, no time, no stats) were skipped");
  if (empty_lines_ > 0)
    notes.push_back(exact(empty_lines_) + " empty lines (no name, no events) were skipped");
  // Time 0 of the capture on the wall clock: the base of since-epoch lines, else the profile start (XProf
  // normalises line timestamps to it).
  capture_->clock_origin_ns_ = epoch_base_ns_ ? epoch_base_ns_ : capture_->profile_start_ns_;
  if (epoch_base_ns_)
    notes.push_back("line timestamps are nanoseconds since the epoch; times are counted from " +
                    std::to_string(*epoch_base_ns_) + " ns since the epoch");
}

}  // namespace oomscope::capture
