// JsonPull's fast path for values it drops (detail/json_pull.h, scan_in_chunk): one tight loop over a value
// that lies wholly in the current chunk, with no call per token, no container stack on the heap and no copy
// of keys. It checks the same grammar as the slow path (json_pull.cpp, json_pull_scalars.cpp) and gives up
// on anything it cannot settle alone (the chunk's end, deep nesting, a number that needs converting to be
// checked, an error), so that the slow path reads that value again from its start and reaches the verdict,
// the words and the offset it always did. Most of a Kineto trace is events that are not [memory]: the
// reader checks each with this loop and drops it, unless its "name" might be one it keeps.

#include <cstring>

#include "core/snapshot/detail/json_pull.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace oomscope::snapshot::detail {

namespace {

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

const char* skip_blanks(const char* q, const char* e) {
  while (q < e && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) ++q;
  return q;
}

bool hex4(const char* q, unsigned& v) {
  v = 0;
  for (int k = 0; k < 4; ++k) {
    const auto c = static_cast<unsigned char>(q[k]);
    unsigned d = 0;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    v = v * 16 + d;
  }
  return true;
}

// One escape at q (a backslash): past it, or nullptr.
const char* escape_end(const char* q, const char* e) {
  if (e - q < 2) return nullptr;
  switch (q[1]) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      return q + 2;
    case 'u':
      break;
    default:
      return nullptr;
  }
  unsigned cp = 0;
  if (e - q < 6 || !hex4(q + 2, cp)) return nullptr;
  q += 6;
  if (cp >= 0xdc00 && cp <= 0xdfff) return nullptr;  // a low surrogate alone
  if (cp < 0xd800 || cp > 0xdbff) return q;
  unsigned low = 0;
  if (e - q < 6 || q[0] != '\\' || q[1] != 'u' || !hex4(q + 2, low) || low < 0xdc00 || low > 0xdfff)
    return nullptr;
  return q + 6;
}

// One UTF-8 sequence at q (a byte >= 0x80), by RFC 3629's table: past it, or nullptr.
const char* utf8_end(const char* q, const char* e) {
  const auto lead = static_cast<unsigned char>(*q);
  int more = 0;
  unsigned lo = 0x80, hi = 0xbf;
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
    return nullptr;
  }
  if (e - q <= more) return nullptr;
  for (int k = 1; k <= more; ++k) {
    const auto c = static_cast<unsigned char>(q[k]);
    if (c < lo || c > hi) return nullptr;
    lo = 0x80, hi = 0xbf;
  }
  return q + more + 1;
}

// The string whose body starts at q: past its closing quote, or nullptr. `escaped` is set by an escape.
const char* string_end(const char* q, const char* e, bool& escaped) {
  while (true) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (e - q >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
      const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                       _mm_cmplt_epi8(v, space));
      const int mask = _mm_movemask_epi8(hit);
      if (mask != 0) {
        q += __builtin_ctz(static_cast<unsigned>(mask));
        break;
      }
      q += 16;
    }
#endif
    while (q < e) {
      const auto c = static_cast<unsigned char>(*q);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++q;
    }
    if (q == e) return nullptr;
    const auto c = static_cast<unsigned char>(*q);
    if (c == '"') return q + 1;
    if (c < 0x20) return nullptr;
    if (c == '\\') {
      escaped = true;
      q = escape_end(q, e);
    } else {
      q = utf8_end(q, e);
    }
    if (!q) return nullptr;
  }
}

// The number at q: past it, or nullptr when it reaches the chunk's end, breaks the grammar, or is one whose
// range JsonPull::convert_number would have to check by converting it (beyond 10^308).
const char* number_end(const char* q, const char* e) {
  if (*q == '-') ++q;
  if (q == e) return nullptr;
  std::int64_t int_digits = 0;
  if (*q == '0') {
    ++q;
  } else if (is_digit(static_cast<unsigned char>(*q))) {
    while (q < e && is_digit(static_cast<unsigned char>(*q))) ++q, ++int_digits;
  } else {
    return nullptr;
  }
  if (q == e) return nullptr;
  bool is_float = false;
  if (*q == '.') {
    is_float = true;
    ++q;
    if (q == e || !is_digit(static_cast<unsigned char>(*q))) return nullptr;
    while (q < e && is_digit(static_cast<unsigned char>(*q))) ++q;
    if (q == e) return nullptr;
  }
  std::int64_t exp = 0;
  if (*q == 'e' || *q == 'E') {
    is_float = true;
    ++q;
    if (q == e) return nullptr;
    const bool exp_neg = *q == '-';
    if (*q == '+' || *q == '-') ++q;
    if (q == e || !is_digit(static_cast<unsigned char>(*q))) return nullptr;
    while (q < e && is_digit(static_cast<unsigned char>(*q))) {
      if (exp < 1'000'000'000) exp = exp * 10 + (*q - '0');
      ++q;
    }
    if (q == e) return nullptr;
    if (exp_neg) exp = -exp;
  }
  if (!is_float) exp = 0;  // an integer out of 64-bit range is a double, as for convert_number
  if ((is_float || int_digits > 19) && int_digits + exp > 308) return nullptr;
  return q;
}

}  // namespace

bool JsonPull::scan_in_chunk(MemberPeek* peek) {
  const char* q = p_;
  const char* const e = end_;
  char open[kFastDepth];
  int depth = 0;
  bool record = false;  // the value about to be read is that of a top-level member named peek->key
  enum { Value, Key, After } next = Value;
  while (true) {
    switch (next) {
      case Value: {
        q = skip_blanks(q, e);
        if (q == e) return false;
        const char c = *q;
        const bool recording = record;
        record = false;
        if (recording) peek->found = true, peek->is_string = c == '"', peek->raw = {};
        next = After;
        if (c == '{' || c == '[') {
          if (depth == kFastDepth) return false;
          open[depth++] = c;
          q = skip_blanks(q + 1, e);
          if (q == e) return false;
          if (*q == (c == '{' ? '}' : ']'))
            ++q, --depth;
          else
            next = c == '{' ? Key : Value;
        } else if (c == '"') {
          const char* body = q + 1;
          bool escaped = false;
          q = string_end(body, e, escaped);
          if (!q) return false;
          if (recording) peek->raw = std::string_view(body, static_cast<std::size_t>(q - 1 - body));
        } else if (c == '-' || is_digit(static_cast<unsigned char>(c))) {
          q = number_end(q, e);
          if (!q) return false;
        } else {
          const char* word = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : nullptr;
          if (!word) return false;
          const auto n = static_cast<std::ptrdiff_t>(std::strlen(word));
          if (e - q < n || std::memcmp(q, word, static_cast<std::size_t>(n)) != 0) return false;
          q += n;
        }
        break;
      }
      case Key: {
        q = skip_blanks(q, e);
        if (q == e || *q != '"') return false;
        const char* body = q + 1;
        bool escaped = false;
        q = string_end(body, e, escaped);
        if (!q) return false;
        if (peek && depth == 1) {
          if (escaped)
            peek->escaped_key = true;
          else if (std::string_view(body, static_cast<std::size_t>(q - 1 - body)) == peek->key)
            record = true;
        }
        q = skip_blanks(q, e);
        if (q == e || *q != ':') return false;
        ++q;
        next = Value;
        break;
      }
      case After: {
        if (depth == 0) {
          scanned_end_ = q;
          return true;
        }
        q = skip_blanks(q, e);
        if (q == e) return false;
        const char open_c = open[depth - 1];
        if (*q == ',') {
          ++q;
          next = open_c == '{' ? Key : Value;
        } else if (*q == (open_c == '{' ? '}' : ']')) {
          ++q;
          --depth;
        } else {
          return false;
        }
        break;
      }
    }
  }
}

}  // namespace oomscope::snapshot::detail
