// The chunked, validating JSON pull reader (detail/json_pull.h).

#include "core/snapshot/detail/json_pull.h"

#include <cstdio>

namespace oomscope::snapshot::detail {

namespace {

bool is_ws(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(int c) { return c >= '0' && c <= '9'; }
std::string shown(int c) {
  if (c < 0) return "the end of the text";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
  return buf;
}

}  // namespace

std::int64_t JsonPull::Number::as_int64() const {
  switch (type) {
    case Unsigned:
      return static_cast<std::int64_t>(u);
    case Integer:
      return i;
    case Float:
      break;
  }
  return static_cast<std::int64_t>(d);
}

double JsonPull::Number::as_double() const {
  switch (type) {
    case Unsigned:
      return static_cast<double>(u);
    case Integer:
      return static_cast<double>(i);
    case Float:
      break;
  }
  return d;
}

JsonPull::JsonPull(Source source) : source_(std::move(source)) {}

void JsonPull::fail(const std::string& what) const { throw Failure(what, offset()); }

bool JsonPull::refill() {
  while (!eof_) {
    base_ += static_cast<std::uint64_t>(end_ - begin_);
    const std::string_view chunk = source_();
    if (chunk.empty()) {
      eof_ = true;
      begin_ = p_ = end_ = nullptr;
      return false;
    }
    begin_ = p_ = chunk.data();
    end_ = chunk.data() + chunk.size();
    return true;
  }
  return false;
}

int JsonPull::skip_ws_slow() {
  while (true) {
    while (p_ < end_) {
      const int c = static_cast<unsigned char>(*p_);
      if (!is_ws(c)) return c;
      ++p_;
    }
    if (!refill()) return -1;
  }
}

void JsonPull::expect_char(char c, const char* what) {
  const int got = skip_ws();
  if (got != static_cast<unsigned char>(c)) fail(std::string("expected ") + what + ", found " + shown(got));
  ++p_;
}

JsonPull::Kind JsonPull::peek_value() {
  if (at_start_) {
    at_start_ = false;
    if (peek_char() == 0xef) {  // a UTF-8 byte order mark
      bom_ = true;
      for (const int want : {0xef, 0xbb, 0xbf}) {
        if (peek_char() != want) fail("a byte order mark cut short");
        ++p_;
      }
    }
  }
  const int c = skip_ws();
  switch (c) {
    case '{':
      return Kind::Object;
    case '[':
      return Kind::Array;
    case '"':
      return Kind::String;
    case 't':
    case 'f':
    case 'n':
      return Kind::Literal;
    default:
      if (c == '-' || is_digit(c)) return Kind::Number;
  }
  fail("expected a value, found " + shown(c));
}

void JsonPull::enter_object() {
  expect_char('{', "'{'");
  open_.push_back('{');
}

void JsonPull::enter_array() {
  expect_char('[', "'['");
  open_.push_back('[');
}

bool JsonPull::next_key(std::string& key, bool& cut, std::size_t max_key) {
  char& state = open_.back();
  int c = skip_ws();
  if (state == '}') {  // a member was read: ',' or the end
    if (c == '}') {
      ++p_;
      open_.pop_back();
      return false;
    }
    if (c != ',') fail("expected ',' or '}' after an object member, found " + shown(c));
    ++p_;
    c = skip_ws();
  } else if (c == '}') {
    ++p_;
    open_.pop_back();
    return false;
  }
  if (c != '"') fail("expected a member name in quotes, found " + shown(c));
  ++p_;
  key.clear();
  cut = false;
  scan_string(&key, max_key, &cut);
  expect_char(':', "':' after a member name");
  state = '}';
  return true;
}

bool JsonPull::next_element() {
  char& state = open_.back();
  const int c = skip_ws();
  if (c == ']') {
    ++p_;
    open_.pop_back();
    return false;
  }
  if (state == ']') {
    if (c != ',') fail("expected ',' or ']' after an array element, found " + shown(c));
    ++p_;
  }
  state = ']';
  return true;
}

void JsonPull::read_string(std::string& out, std::size_t max_keep, bool* cut) {
  expect_char('"', "a string");
  out.clear();
  if (cut) *cut = false;
  scan_string(&out, max_keep, cut);
}

JsonPull::Number JsonPull::read_number() {
  skip_ws();
  return scan_number(true);
}

void JsonPull::skip_value() {
  if (!at_start_ && skip_ws() >= 0 && scan_in_chunk(nullptr)) {
    skip_scanned();
    return;
  }
  const std::size_t depth = open_.size();
  std::string ignored;
  bool cut = false;
  while (true) {
    switch (peek_value()) {
      case Kind::Object:
        enter_object();
        break;
      case Kind::Array:
        enter_array();
        break;
      case Kind::String:
        ++p_;
        scan_string(nullptr, 0, nullptr);
        break;
      case Kind::Number:
        scan_number(false);
        break;
      case Kind::Literal:
        scan_literal();
        break;
    }
    // Close what has ended; stop once back at the starting depth, or go on with the next member/element.
    while (open_.size() > depth) {
      const bool more =
          open_.back() == '{' || open_.back() == '}' ? next_key(ignored, cut, 0) : next_element();
      if (more) break;
    }
    if (open_.size() == depth) return;
  }
}

void JsonPull::expect_end() {
  const int c = skip_ws();
  if (c == 0)
    return;  // nlohmann takes a NUL byte between tokens for the end of the input: the rest is ignored
  if (c >= 0) fail("expected the end of the text after the top value, found " + shown(c));
}

void JsonPull::scan_literal() {
  const int c = peek_char();
  const char* word = c == 't' ? "true" : c == 'f' ? "false" : "null";
  for (const char* w = word; *w; ++w) {
    if (peek_char() != static_cast<unsigned char>(*w))
      fail(std::string("invalid literal (expected '") + word + "')");
    ++p_;
  }
}

}  // namespace oomscope::snapshot::detail
