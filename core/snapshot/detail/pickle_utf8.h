#pragma once
// UTF-8 validation of pickle strings (the reader's and the record fast path's): Python writes lone
// surrogates with surrogatepass, so those three-byte forms are accepted.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace oomscope::snapshot::detail {

inline bool valid_utf8(const unsigned char* s, std::size_t n) {
  std::size_t i = 0;
  while (i < n) {
    // ASCII fast path, eight bytes at a time.
    if (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s + i, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char c = s[i];
    std::size_t len = 0;
    if (c < 0x80)
      len = 1;
    else if (c >= 0xc2 && c <= 0xdf)
      len = 2;
    else if (c >= 0xe0 && c <= 0xef)
      len = 3;  // surrogates allowed: Python writes them with surrogatepass
    else if (c >= 0xf0 && c <= 0xf4)
      len = 4;
    else
      return false;
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((s[i + k] & 0xc0) != 0x80) return false;
    if (c == 0xe0 && s[i + 1] < 0xa0) return false;
    if (c == 0xf0 && s[i + 1] < 0x90) return false;
    if (c == 0xf4 && s[i + 1] > 0x8f) return false;
    i += len;
  }
  return true;
}

}  // namespace oomscope::snapshot::detail
