#pragma once
// Live-attach wire protocol, version 1 (docs/live-protocol.md):
// newline-delimited JSON over a stream socket. The agent sends one `hello`, then `sample`, `event` and
// `shapes` lines; a client may send `auth` (first, when the agent asks for a token) and `subscribe`.
// Unknown fields and unknown types are ignored; a malformed, wrong-typed or oversized line is reported
// with a clear message and skipped, never fatal.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/util/enum_names.h"

namespace oomscope::live {

inline constexpr int kProtocolVersion = 1;
// Longest line accepted (bytes, newline excluded). Longer lines are counted and skipped.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;

// The optional integer fields of a sample, in wire order. Byte figures are bytes.
enum class Field : std::uint8_t {
  Step,
  Micro,
  Allocated,
  Reserved,
  Active,
  PeakAllocated,
  InactiveSplit,
  AllocRetries,
  Ooms,
  Driver,
  RecommendedMax,
  DeviceUsed,
  Rss,
};
inline constexpr std::size_t kFieldCount = 13;
// The wire names, in wire order: entry i names field i (the sample line's and the recording's order).
inline constexpr EnumName<Field> kFieldNames[] = {
    {Field::Step, "step"},
    {Field::Micro, "micro"},
    {Field::Allocated, "allocated"},
    {Field::Reserved, "reserved"},
    {Field::Active, "active"},
    {Field::PeakAllocated, "peak_allocated"},
    {Field::InactiveSplit, "inactive_split"},
    {Field::AllocRetries, "alloc_retries"},
    {Field::Ooms, "ooms"},
    {Field::Driver, "driver"},
    {Field::RecommendedMax, "recommended_max"},
    {Field::DeviceUsed, "device_used"},
    {Field::Rss, "rss"},
};
static_assert(std::size(kFieldNames) == kFieldCount && names_every_value(kFieldNames, Field::Rss));
static_assert([] {
  for (std::size_t i = 0; i < kFieldCount; ++i)
    if (static_cast<std::size_t>(kFieldNames[i].value) != i) return false;
  return true;
}());
const char* field_name(Field f) noexcept;  // the wire name: "peak_allocated"
std::optional<Field> field_from_name(std::string_view name) noexcept;
bool field_is_bytes(Field f) noexcept;  // false for step, micro, alloc_retries, ooms

struct Sample {
  std::int64_t t = 0;         // unix nanoseconds
  std::uint16_t present = 0;  // bit i set when field i is present
  std::array<std::int64_t, kFieldCount> values{};

  bool has(Field f) const noexcept { return (present >> static_cast<int>(f)) & 1u; }
  std::int64_t get(Field f, std::int64_t fallback = 0) const noexcept {
    return has(f) ? values[static_cast<std::size_t>(f)] : fallback;
  }
  void set(Field f, std::int64_t v) noexcept {
    values[static_cast<std::size_t>(f)] = v;
    present = static_cast<std::uint16_t>(present | (1u << static_cast<int>(f)));
  }
};

struct Hello {
  int protocol = kProtocolVersion;
  std::int64_t pid = 0;
  std::string host;
  int rank = 0;
  int world_size = 1;
  std::string backend;  // "cuda", "mps", "cpu", "jax-gpu", ...
  std::string device;
  std::int64_t total_bytes = 0;  // 0: unknown
  std::string framework;
  std::vector<std::string> command;
};

struct Event {
  std::int64_t t = 0;
  std::string kind;  // "oom", "split", "checkpoint", "restart", "note", or anything newer
  std::string message;
  std::string path;  // optional: a snapshot written for an oom
  std::optional<std::int64_t> step;
};

struct Shapes {
  std::int64_t t = 0;
  std::int64_t distinct = 0;
  std::vector<std::int64_t> last;  // the last batch's padded shape
  // Extension (optional "new" field): the shapes first seen since the previous shapes line, so that the
  // debugger can analyse the whole set (shape_churn.h). Capped by the agent.
  std::vector<std::vector<std::int64_t>> fresh;
};

struct Auth {
  std::string token;
};
struct Subscribe {
  int interval_ms = 100;
};
// A line with a type this version does not know: ignored by design (the protocol may grow).
struct Unknown {
  std::string type;
};

using Message = std::variant<Hello, Sample, Event, Shapes, Auth, Subscribe, Unknown>;

struct ParseResult {
  std::optional<Message> message;  // empty when the line was rejected
  std::string error;               // why, in one sentence, when rejected
};

// Parses one line (without its newline). Never throws.
ParseResult parse_line(std::string_view line);

// One line each, newline included.
std::string write_line(const Hello& h);
std::string write_line(const Sample& s);
std::string write_line(const Event& e);
std::string write_line(const Shapes& s);
std::string write_line(const Auth& a);
std::string write_line(const Subscribe& s);

// Splits a byte stream into lines, capping each at kMaxLineBytes: the rest of an oversized line is
// discarded and the line reported as oversized.
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line = kMaxLineBytes) : max_(max_line) {}
  // Calls on_line(std::string_view) for each complete line and on_oversized(size) for each capped one.
  template <class OnLine, class OnOversized>
  void feed(std::string_view bytes, OnLine&& on_line, OnOversized&& on_oversized);
  // Bytes of an unfinished line still held (what a connection that dies mid-line loses).
  std::size_t pending() const noexcept { return discarding_ ? discarded_ : buf_.size(); }
  void reset() {
    buf_.clear();
    discarding_ = false;
    discarded_ = 0;
  }

 private:
  std::size_t max_;
  std::string buf_;
  bool discarding_ = false;
  std::size_t discarded_ = 0;
};

template <class OnLine, class OnOversized>
void LineSplitter::feed(std::string_view bytes, OnLine&& on_line, OnOversized&& on_oversized) {
  while (!bytes.empty()) {
    const std::size_t nl = bytes.find('\n');
    const std::string_view chunk = bytes.substr(0, nl);
    if (discarding_) {
      discarded_ += chunk.size();
    } else if (buf_.size() + chunk.size() > max_) {
      discarding_ = true;
      discarded_ = buf_.size() + chunk.size();
      buf_.clear();
    } else {
      buf_.append(chunk);
    }
    if (nl == std::string_view::npos) return;
    if (discarding_) {
      on_oversized(discarded_);
      discarding_ = false;
      discarded_ = 0;
    } else {
      std::string_view line = buf_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      on_line(line);
      buf_.clear();
    }
    bytes.remove_prefix(nl + 1);
  }
}

}  // namespace oomscope::live
