// AnchorScan: all of the log reader's anchors searched in one pass (detail/anchor_scan.h). The reader used
// to run one substring search per anchor over every 4 MiB chunk, 17 passes over the text; this filter reads
// it once, so the reader keeps up with `grep -c` on the same file.

#include "core/log/detail/anchor_scan.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace oomscope::log::detail {

AnchorScan::AnchorScan(std::span<const std::string_view> anchors) : anchors_(anchors.begin(), anchors.end()) {
  // Anchors that share a first byte share a bucket (fewer nibble combinations that match nothing); the
  // others are dealt round the buckets.
  std::array<int, 256> bucket_of_first;
  bucket_of_first.fill(-1);
  std::size_t next = 0;
  for (std::size_t i = 0; i < anchors_.size(); ++i) {
    const std::string_view a = anchors_[i];
    const auto c0 = static_cast<std::uint8_t>(a[0]);
    if (bucket_of_first[c0] < 0) bucket_of_first[c0] = static_cast<int>(next++ % kBuckets);
    const auto bucket = static_cast<unsigned>(bucket_of_first[c0]);
    members_[bucket].push_back(static_cast<std::uint8_t>(i));
    const auto bit = static_cast<std::uint8_t>(1u << bucket);
    first_[c0] |= bit;
    for (std::size_t k = 0; k < kFingerprint && k < a.size(); ++k) {
      const auto c = static_cast<std::uint8_t>(a[k]);
      lo_[k][c & 15] |= bit;
      hi_[k][c >> 4] |= bit;
    }
  }
  bool long_enough = anchors_.size() < 256;
  for (std::string_view a : anchors_) long_enough = long_enough && a.size() >= kFingerprint;
#if defined(__x86_64__)
  simd_ = long_enough && __builtin_cpu_supports("avx2");
#else
  simd_ = false;
  (void)long_enough;
#endif
}

bool AnchorScan::matches_at(std::string_view text, std::size_t p, unsigned buckets) const {
  for (std::size_t b = 0; b < kBuckets; ++b) {
    if ((buckets & (1u << b)) == 0) continue;
    for (const std::uint8_t i : members_[b]) {
      const std::string_view a = anchors_[i];
      if (a.size() <= text.size() - p && std::memcmp(text.data() + p, a.data(), a.size()) == 0) return true;
    }
  }
  return false;
}

std::size_t AnchorScan::find_scalar(std::string_view text, std::size_t from) const {
  for (std::size_t p = from; p < text.size(); ++p)
    if (const std::uint8_t bits = first_[static_cast<std::uint8_t>(text[p])];
        bits != 0 && matches_at(text, p, bits))
      return p;
  return std::string_view::npos;
}

std::size_t AnchorScan::find(std::string_view text, std::size_t from) const {
  if (from >= text.size() || anchors_.empty()) return std::string_view::npos;
  return simd_ ? find_simd(text, from) : find_scalar(text, from);
}

#if defined(__x86_64__)
namespace {
// The buckets that may have an anchor whose byte k is at[0..31] (lo, hi: that byte's nibble tables, the
// same in both 128-bit lanes, as vpshufb looks up within a lane).
__attribute__((target("avx2"))) inline __m256i buckets_at(const std::uint8_t* at, __m256i lo, __m256i hi,
                                                          __m256i low) {
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
  return _mm256_and_si256(_mm256_shuffle_epi8(lo, _mm256_and_si256(c, low)),
                          _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(c, 4), low)));
}

__attribute__((target("avx2"))) inline __m256i table(const std::uint8_t (&t)[16]) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(t)));
}
}  // namespace

__attribute__((target("avx2"))) std::size_t AnchorScan::find_simd(std::string_view text,
                                                                  std::size_t from) const {
  const auto* t = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::size_t n = text.size();
  const __m256i low = _mm256_set1_epi8(0x0f);
  const __m256i lo0 = table(lo_[0]), lo1 = table(lo_[1]), lo2 = table(lo_[2]);
  const __m256i hi0 = table(hi_[0]), hi1 = table(hi_[1]), hi2 = table(hi_[2]);
  static_assert(kFingerprint == 3);
  std::size_t p = from;
  // Positions p..p+31 need bytes up to p+31+kFingerprint-1: whole blocks while they are inside the text.
  for (; p + 32 + kFingerprint - 1 <= n; p += 32) {
    const __m256i m = _mm256_and_si256(
        _mm256_and_si256(buckets_at(t + p, lo0, hi0, low), buckets_at(t + p + 1, lo1, hi1, low)),
        buckets_at(t + p + 2, lo2, hi2, low));
    auto candidates =
        ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_setzero_si256())));
    if (candidates == 0) continue;
    alignas(32) std::uint8_t bits[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(bits), m);
    while (candidates != 0) {
      const auto j = static_cast<std::size_t>(__builtin_ctz(candidates));
      candidates &= candidates - 1;
      if (matches_at(text, p + j, bits[j])) return p + j;
    }
  }
  return find_scalar(text, p);  // the last few positions
}
#else
std::size_t AnchorScan::find_simd(std::string_view text, std::size_t from) const {
  return find_scalar(text, from);
}
#endif

#if defined(__x86_64__)
namespace {
// 32 bytes compared at once, 255 blocks summed per byte lane before the lanes are added up; the NUL bytes
// are looked for in the same pass (an OR of one more comparison), not in a second one over the text.
__attribute__((target("avx2"))) std::size_t count_newlines_avx2(const char*& p, const char* end, bool& nul) {
  std::size_t count = 0;
  const __m256i nl = _mm256_set1_epi8('\n');
  const __m256i zero = _mm256_setzero_si256();
  __m256i zeros = zero;
  while (end - p >= 32) {
    __m256i sums = zero;
    const std::size_t blocks = std::min<std::size_t>(static_cast<std::size_t>(end - p) / 32, 255);
    for (std::size_t i = 0; i < blocks; ++i, p += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      sums = _mm256_sub_epi8(sums, _mm256_cmpeq_epi8(v, nl));
      zeros = _mm256_or_si256(zeros, _mm256_cmpeq_epi8(v, zero));
    }
    const __m256i wide = _mm256_sad_epu8(sums, zero);
    count += static_cast<std::size_t>(_mm256_extract_epi64(wide, 0)) +
             static_cast<std::size_t>(_mm256_extract_epi64(wide, 1)) +
             static_cast<std::size_t>(_mm256_extract_epi64(wide, 2)) +
             static_cast<std::size_t>(_mm256_extract_epi64(wide, 3));
  }
  nul = nul || _mm256_movemask_epi8(zeros) != 0;
  return count;
}
}  // namespace
#endif

LineBytes scan_line_bytes(const char* begin, const char* end) {
  LineBytes out;
  const char* p = begin;
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) out.newlines += count_newlines_avx2(p, end, out.nul);
  // SSE2 is part of x86-64: 16 bytes compared at once, 255 blocks summed per byte lane before they are
  // added up.
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i zero = _mm_setzero_si128();
  __m128i zeros = zero;
  while (end - p >= 16) {
    __m128i sums = zero;
    const std::size_t blocks = std::min<std::size_t>(static_cast<std::size_t>(end - p) / 16, 255);
    for (std::size_t i = 0; i < blocks; ++i, p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      sums = _mm_sub_epi8(sums, _mm_cmpeq_epi8(v, nl));
      zeros = _mm_or_si128(zeros, _mm_cmpeq_epi8(v, zero));
    }
    const __m128i wide = _mm_sad_epu8(sums, zero);
    out.newlines += static_cast<std::size_t>(_mm_cvtsi128_si64(wide)) +
                    static_cast<std::size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(wide, wide)));
  }
  out.nul = out.nul || _mm_movemask_epi8(zeros) != 0;
#endif
  for (; p < end; ++p) {
    out.newlines += *p == '\n';
    out.nul = out.nul || *p == '\0';
  }
  return out;
}

}  // namespace oomscope::log::detail
