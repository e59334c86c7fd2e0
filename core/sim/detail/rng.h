#pragma once
// A small deterministic generator (splitmix64). The standard distributions are implementation-defined,
// so every transform is done here: the same seed gives the same scenes on every platform and library.

#include <cstdint>

namespace oomscope::sim::detail {

inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Independent streams for (seed, purpose, index).
inline std::uint64_t stream_key(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index) {
  return mix64(mix64(seed ^ 0x6a09e667f3bcc909ULL) ^ mix64(purpose + 0x3c6ef372fe94f82bULL) ^
               (index * 0x9e3779b97f4a7c15ULL));
}

class Rng {
 public:
  explicit Rng(std::uint64_t key) : state_(key) {}
  std::uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  // [0, 1) with 53 random bits
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  // (0, 1]
  double uniform_open0() { return 1.0 - uniform(); }
  // [0, n) for n < 2^53
  std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>(uniform() * double(n)); }
  // Approximately standard normal (Irwin-Hall of 3 uniforms of 21 bits, all from one draw): no libm, so
  // bit-identical everywhere, and cheap enough for hundreds of millions of points.
  float normal() {
    const std::uint64_t r = next();
    constexpr float k = 1.0f / 2097152.0f;
    const float s =
        float(r & 0x1fffff) * k + float((r >> 21) & 0x1fffff) * k + float((r >> 42) & 0x1fffff) * k;
    return (s - 1.5f) * 2.0f;
  }
  // Two floats in [0, 1) with 24 bits each, from one draw.
  void uniform2(float& a, float& b) {
    const std::uint64_t r = next();
    constexpr float k = 1.0f / 16777216.0f;
    a = float(r & 0xffffff) * k;
    b = float((r >> 32) & 0xffffff) * k;
  }

 private:
  std::uint64_t state_;
};

}  // namespace oomscope::sim::detail
