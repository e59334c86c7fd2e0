// JsonPull's strings and numbers (detail/json_pull.h): the per-byte work, kept apart from the structure.

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/snapshot/detail/json_pull.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace oomscope::snapshot::detail {

namespace {

bool is_digit(int c) { return c >= '0' && c <= '9'; }

void keep(std::string* out, const char* data, std::size_t n, std::size_t max_keep, bool* cut) {
  if (!out || n == 0) return;
  const std::size_t room = max_keep > out->size() ? max_keep - out->size() : 0;
  if (n > room) {
    out->append(data, room);
    if (cut) *cut = true;
    return;
  }
  out->append(data, n);
}

void append_utf8(std::string& out, unsigned cp) {
  char b[4];
  std::size_t n = 0;
  if (cp < 0x80) {
    b[n++] = static_cast<char>(cp);
  } else if (cp < 0x800) {
    b[n++] = static_cast<char>(0xc0 | (cp >> 6));
    b[n++] = static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    b[n++] = static_cast<char>(0xe0 | (cp >> 12));
    b[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    b[n++] = static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    b[n++] = static_cast<char>(0xf0 | (cp >> 18));
    b[n++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    b[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    b[n++] = static_cast<char>(0x80 | (cp & 0x3f));
  }
  out.append(b, n);
}

}  // namespace

void JsonPull::scan_string(std::string* out, std::size_t max_keep, bool* cut) {
  while (true) {
    const char* s = p_;
#if defined(__SSE2__)
    // 16 bytes at a time while none is a quote, a backslash, a control character or non-ASCII (the signed
    // compare with 0x20 catches both).
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end_ - p_ >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                       _mm_cmplt_epi8(v, space));
      const int mask = _mm_movemask_epi8(hit);
      if (mask != 0) {
        p_ += __builtin_ctz(static_cast<unsigned>(mask));
        break;
      }
      p_ += 16;
    }
#endif
    while (p_ < end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++p_;
    }
    keep(out, s, static_cast<std::size_t>(p_ - s), max_keep, cut);
    if (p_ == end_) {
      if (!refill()) fail("a string is cut short by the end of the text");
      continue;
    }
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      ++p_;
      return;
    }
    if (c < 0x20) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "a control character (byte 0x%02X) inside a string", c);
      fail(buf);
    }
    ++p_;
    if (c >= 0x80) {
      scan_utf8(c, out);
      if (out && out->size() > max_keep) {
        if (cut) *cut = true;
        out->resize(max_keep);
      }
      continue;
    }
    // An escape.
    const int e = peek_char();
    char plain = 0;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        plain = static_cast<char>(e);
        break;
      case 'b':
        plain = '\b';
        break;
      case 'f':
        plain = '\f';
        break;
      case 'n':
        plain = '\n';
        break;
      case 'r':
        plain = '\r';
        break;
      case 't':
        plain = '\t';
        break;
      case 'u':
        break;
      default:
        fail("an invalid escape in a string");
    }
    ++p_;
    if (e != 'u') {
      keep(out, &plain, 1, max_keep, cut);
      continue;
    }
    unsigned cp = read_hex4();
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (peek_char() != '\\') fail("a \\u escape of a high surrogate not followed by a low one");
      ++p_;
      if (peek_char() != 'u') fail("a \\u escape of a high surrogate not followed by a low one");
      ++p_;
      const unsigned low = read_hex4();
      if (low < 0xdc00 || low > 0xdfff) fail("a \\u escape of a high surrogate not followed by a low one");
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
      fail("a \\u escape of a low surrogate without a high one before it");
    }
    if (out) {
      std::string u;
      append_utf8(u, cp);
      keep(out, u.data(), u.size(), max_keep, cut);
    }
  }
}

unsigned JsonPull::read_hex4() {
  unsigned v = 0;
  for (int k = 0; k < 4; ++k) {
    const int c = peek_char();
    unsigned d = 0;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      fail("a \\u escape without four hexadecimal digits");
    v = v * 16 + d;
    ++p_;
  }
  return v;
}

// The bytes after a non-ASCII lead byte, checked against RFC 3629's table of well-formed sequences.
void JsonPull::scan_utf8(unsigned char lead, std::string* out) {
  int more = 0;
  int lo = 0x80, hi = 0xbf;  // range of the first continuation byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    more = 1;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    more = 2;
    if (lead == 0xe0) lo = 0xa0;
    if (lead == 0xed) hi = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    more = 3;
    if (lead == 0xf0) lo = 0x90;
    if (lead == 0xf4) hi = 0x8f;
  } else {
    fail("invalid UTF-8 in a string");
  }
  char seq[4] = {static_cast<char>(lead), 0, 0, 0};
  for (int k = 1; k <= more; ++k) {
    const int c = peek_char();
    if (c < lo || c > hi) fail("invalid UTF-8 in a string");
    seq[k] = static_cast<char>(c);
    ++p_;
    lo = 0x80, hi = 0xbf;
  }
  if (out) out->append(seq, static_cast<std::size_t>(more) + 1);
}

// A number that lies wholly inside the chunk (the usual case) is checked and converted in place; false
// (with nothing consumed) when it runs to the chunk's end, for scan_number's byte-by-byte path.
bool JsonPull::scan_number_in_chunk(bool keep_value, Number& n) {
  const char* q = p_;
  const bool neg = *q == '-';
  if (neg) ++q;
  if (q == end_) return false;
  std::size_t int_digits = 0;
  if (*q == '0') {
    ++q;
  } else if (is_digit(static_cast<unsigned char>(*q))) {
    while (q < end_ && is_digit(static_cast<unsigned char>(*q))) ++q, ++int_digits;
  } else {
    fail("a number without digits");
  }
  if (q == end_) return false;
  bool is_float = false;
  if (*q == '.') {
    is_float = true;
    ++q;
    if (q == end_) return false;
    if (!is_digit(static_cast<unsigned char>(*q))) return false;  // the slow path names the error
    while (q < end_ && is_digit(static_cast<unsigned char>(*q))) ++q;
    if (q == end_) return false;
  }
  std::int64_t exp = 0;
  if (*q == 'e' || *q == 'E') {
    is_float = true;
    ++q;
    if (q == end_) return false;
    const bool exp_neg = *q == '-';
    if (*q == '+' || *q == '-') ++q;
    if (q == end_ || !is_digit(static_cast<unsigned char>(*q))) return false;
    while (q < end_ && is_digit(static_cast<unsigned char>(*q))) {
      if (exp < 1'000'000'000) exp = exp * 10 + (*q - '0');
      ++q;
    }
    if (q == end_) return false;
    if (exp_neg) exp = -exp;
  }
  const char* b = p_;
  p_ = q;
  if (keep_text_) keep_text_->assign(b, q);
  n = convert_number(b, q, neg, is_float, int_digits, exp, keep_value);
  return true;
}

void JsonPull::read_number_text(std::string& text) {
  skip_ws();
  keep_text_ = &text;
  try {
    scan_number(false);
  } catch (...) {
    keep_text_ = nullptr;
    throw;
  }
  keep_text_ = nullptr;
}

JsonPull::Number JsonPull::number_of(std::string_view text) {
  bool given = false;
  JsonPull j([&]() -> std::string_view {
    if (given) return {};
    given = true;
    return text;
  });
  j.at_start_ = false;
  return j.read_number();
}

JsonPull::Number JsonPull::scan_number(bool keep_value) {
  Number fast;
  if (p_ < end_ && scan_number_in_chunk(keep_value, fast)) return fast;
  token_.clear();
  const auto take = [&] {
    token_ += *p_;
    ++p_;
  };
  int c = peek_char();
  const bool neg = c == '-';
  if (neg) take(), c = peek_char();
  std::size_t int_digits = 0;
  if (c == '0') {
    take();
    c = peek_char();
  } else if (is_digit(c)) {
    while (is_digit(c)) take(), ++int_digits, c = peek_char();
  } else {
    fail("a number without digits");
  }
  bool is_float = false;
  if (c == '.') {
    is_float = true;
    take();
    if (!is_digit(peek_char())) fail("a number with no digit after its '.'");
    while (is_digit(peek_char())) take();
    c = peek_char();
  }
  std::int64_t exp = 0;
  if (c == 'e' || c == 'E') {
    is_float = true;
    take();
    c = peek_char();
    const bool exp_neg = c == '-';
    if (c == '+' || c == '-') take();
    if (!is_digit(peek_char())) fail("a number with no digit in its exponent");
    while (is_digit(c = peek_char())) {
      if (exp < 1'000'000'000) exp = exp * 10 + (c - '0');
      take();
    }
    if (exp_neg) exp = -exp;
  }
  if (keep_text_) *keep_text_ = token_;
  return convert_number(token_.data(), token_.data() + token_.size(), neg, is_float, int_digits, exp,
                        keep_value);
}

JsonPull::Number JsonPull::convert_number(const char* b, const char* e, bool neg, bool is_float,
                                          std::size_t int_digits, std::int64_t exp, bool keep_value) {
  Number n;
  if (!is_float) {
    if (!keep_value && int_digits <= 19) return n;  // fits an int64 or a uint64: nothing can go wrong
    if (neg) {
      if (std::from_chars(b, e, n.i).ec == std::errc()) return n.type = Number::Integer, n;
    } else if (std::from_chars(b, e, n.u).ec == std::errc()) {
      return n;
    }
    exp = 0;  // out of range: a double, as nlohmann does
  }
  n.type = Number::Float;
  // Below 10^308 a double is finite: a number dropped needs no conversion.
  if (!keep_value && static_cast<std::int64_t>(int_digits) + exp <= 308) return n;
  if (keep_value && std::from_chars(b, e, n.d).ec == std::errc()) return n;
  const std::string text(b, e);
  n.d = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(n.d)) fail("number overflow parsing '" + text.substr(0, 40) + "'");
  return n;
}

}  // namespace oomscope::snapshot::detail
