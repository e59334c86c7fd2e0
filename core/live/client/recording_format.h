#pragma once
// The recording file: a gzip stream (flushed with Z_SYNC_FLUSH about every second, so whatever a crash
// leaves behind decodes up to its last flush) holding the magic line "OOMSCOPE-LIVE-RECORDING 1\n" and then
// records. Each record: kind byte, varint rank index, body:
//   Endpoint/Disconnected/Connected/BadLine: varint t (Endpoint: 0), varint length, text
//   Line: varint length, a protocol v1 line (hello, event, shapes) without its newline
//   Sample: zigzag varint of t minus the rank's previous sample t, varint presence mask, then per present
//           field the zigzag varint of the value minus that field's previous value on this rank.
// Deltas keep a 10 Hz rank at about 20 bytes a sample before gzip.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/live/protocol/protocol.h"

namespace oomscope::live::rec {

inline constexpr std::string_view kMagic = "OOMSCOPE-LIVE-RECORDING 1\n";

enum class Kind : std::uint8_t {
  Endpoint = 1,
  Line = 2,
  Sample = 3,
  Disconnected = 4,
  Connected = 5,
  BadLine = 6
};

inline void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Wrapping difference and sum (deltas of arbitrary int64 values never overflow).
inline std::int64_t wrap_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
inline std::int64_t wrap_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

// Reads from [p, end); false when the input ends inside the varint or it is over 10 bytes.
inline bool get_varint(const char*& p, const char* end, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    const auto b = static_cast<std::uint8_t>(*p++);
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// The previous sample of one rank, for delta coding (the same state on both sides).
struct DeltaState {
  std::int64_t t = 0;
  std::array<std::int64_t, kFieldCount> values{};
};

}  // namespace oomscope::live::rec
