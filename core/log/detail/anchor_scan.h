#pragma once
// Internal: finds the first place where any of a small set of substrings (the reader's anchors) begins,
// in one pass over the text, whatever their number. On x86-64 with AVX2 it is a "Teddy" filter (as in
// Hyperscan and ripgrep): the anchors are spread over 8 buckets, and for 32 positions at a time two
// nibble-table lookups per byte of a 3-byte fingerprint say which buckets may begin there; only those
// positions are compared in full. Elsewhere (or without AVX2) a first-byte table picks the positions to
// compare. Both give the
// same answer as taking the smallest std::string_view::find over the anchors.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace oomscope::log::detail {

class AnchorScan {
 public:
  static constexpr std::size_t kBuckets = 8;
  static constexpr std::size_t kFingerprint = 3;  // bytes; every anchor is at least this long

  // The views must outlive the scanner (string literals, as the reader's are).
  explicit AnchorScan(std::span<const std::string_view> anchors);

  // The smallest position p >= from at which some anchor lies wholly inside `text`; npos when none does.
  std::size_t find(std::string_view text, std::size_t from) const;
  // The same, without the SIMD filter (for tests, and machines without AVX2).
  std::size_t find_scalar(std::string_view text, std::size_t from) const;

 private:
  // True when an anchor of one of the buckets in `buckets` (bit b for bucket b) begins at text[p] and fits.
  bool matches_at(std::string_view text, std::size_t p, unsigned buckets) const;
  std::size_t find_simd(std::string_view text, std::size_t from) const;  // AVX2

  std::vector<std::string_view> anchors_;
  std::array<std::vector<std::uint8_t>, kBuckets> members_;  // anchor indexes per bucket
  std::array<std::uint8_t, 256> first_ = {};                 // bucket bits of the anchors starting with it
  // lo_[k][n]: bucket bits of the anchors whose byte k has low nibble n; hi_ likewise for the high nibble.
  alignas(16) std::uint8_t lo_[kFingerprint][16] = {};
  alignas(16) std::uint8_t hi_[kFingerprint][16] = {};
  bool simd_ = false;
};

// What the reader needs to know of the bytes it passes over without parsing them: how many lines end there,
// and whether a NUL byte is among them. One pass, 32 or 16 bytes at a time where the machine allows.
struct LineBytes {
  std::size_t newlines = 0;
  bool nul = false;
};
LineBytes scan_line_bytes(const char* begin, const char* end);

}  // namespace oomscope::log::detail
