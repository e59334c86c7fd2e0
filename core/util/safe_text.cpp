#include "core/util/safe_text.h"

#include <cstdint>

namespace oomscope {

namespace {

// Length of the valid UTF-8 sequence at text[i] and its code point; 0 when the bytes there are not one.
std::size_t utf8_at(std::string_view text, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(text[i + k]); };
  const std::uint8_t c = b(0);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  std::size_t n = 0;
  char32_t min = 0;
  if ((c & 0xe0) == 0xc0)
    n = 2, cp = c & 0x1f, min = 0x80;
  else if ((c & 0xf0) == 0xe0)
    n = 3, cp = c & 0x0f, min = 0x800;
  else if ((c & 0xf8) == 0xf0)
    n = 4, cp = c & 0x07, min = 0x10000;
  else
    return 0;
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;  // overlong, too big, surrogate
  return n;
}

void hex_escape(std::string& out, std::uint8_t byte) {
  static const char digits[] = "0123456789abcdef";
  out += "\\x";
  out += digits[byte >> 4];
  out += digits[byte & 15];
}

bool unsafe_code_point(char32_t cp, bool keep_layout) {
  if (cp == '\n' || cp == '\t') return !keep_layout;
  if (cp < 0x20 || cp == 0x7f) return true;
  if (cp >= 0x80 && cp <= 0x9f) return true;  // C1 controls (CSI 0x9b ...)
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return true;  // bidi overrides
  if (cp == 0x200e || cp == 0x200f || cp == 0x061c) return true;                      // bidi marks
  return false;
}

std::string escape(std::string_view text, bool keep_layout) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(text, i, cp);
    if (n == 0) {
      hex_escape(out, static_cast<std::uint8_t>(text[i]));
      ++i;
      continue;
    }
    if (unsafe_code_point(cp, keep_layout)) {
      if (cp < 0x100) {
        hex_escape(out, static_cast<std::uint8_t>(cp));
      } else {
        static const char digits[] = "0123456789abcdef";
        out += "\\u{";
        bool started = false;
        for (int shift = 20; shift >= 0; shift -= 4) {
          const auto d = static_cast<unsigned>((cp >> shift) & 15);
          if (d == 0 && !started && shift > 0) continue;
          started = true;
          out += digits[d];
        }
        out += '}';
      }
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(text, i, cp);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string terminal_safe(std::string_view text) { return escape(text, true); }

std::string single_line_safe(std::string_view text) { return escape(text, false); }

}  // namespace oomscope
