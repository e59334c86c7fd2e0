#pragma once
// A validating pull reader of JSON text that arrives in chunks (a file read a block at a time, gzip output a
// chunk at a time), for readers that keep a few fields of a huge document: the Kineto trace reader. It
// holds one chunk and the token being read, never the document, and never recurses, so memory is bounded by
// what the caller keeps and nesting depth costs one byte a level.
//
// It accepts exactly what nlohmann::json::parse accepts (the reader's previous parser, which
// tests/core/snapshot/kineto_json_test.cpp compares it with on crafted and mutated input): RFC 8259 grammar,
// a UTF-8 byte order mark at the start, strings of well-formed UTF-8 (RFC 3629) without control characters,
// escapes including surrogate pairs, numbers of any length so long as a float stays finite; and reads numbers
// as nlohmann does (a positive integer as uint64, a negative one as int64, falling back to double when out of
// range; floats correctly rounded). Errors throw JsonPull::Failure with the byte offset in the text.

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace oomscope::snapshot::detail {

class JsonPull {
 public:
  // Returns the next chunk of text (valid until the next call), empty at the end.
  using Source = std::function<std::string_view()>;

  struct Failure : std::runtime_error {
    Failure(const std::string& what, std::uint64_t at) : std::runtime_error(what), offset(at) {}
    std::uint64_t offset;
  };

  enum class Kind { Object, Array, String, Number, Literal };

  struct Number {
    enum Type { Unsigned, Integer, Float } type = Unsigned;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    double d = 0;
    bool is_float() const { return type == Float; }
    // nlohmann's get<std::int64_t>() and get<double>() of the same number.
    std::int64_t as_int64() const;
    double as_double() const;
  };

  explicit JsonPull(Source source);

  // The kind of the next value, after whitespace (and the byte order mark before the first value).
  Kind peek_value();
  // Inside an object just opened by enter_object(): false at its '}'; otherwise reads the key into `key`
  // (at most max_key bytes kept: a longer key is read in full but kept cut, with `cut` set) and the ':'.
  void enter_object();
  bool next_key(std::string& key, bool& cut, std::size_t max_key = 64);
  // Inside an array just opened by enter_array(): false at its ']'.
  void enter_array();
  bool next_element();
  // The next value, which peek_value() said is a string; at most max_keep bytes kept (`cut` says if more).
  void read_string(std::string& out, std::size_t max_keep = std::string::npos, bool* cut = nullptr);
  Number read_number();  // ... a number
  // ... a number, checked but kept as its text (`text`), for number_of() once it is known to be needed.
  void read_number_text(std::string& text);
  // A number from the text read_number_text() kept: what read_number() would have given.
  static Number number_of(std::string_view text);
  void skip_value();  // validates the next value, whatever it is, and drops it

  // What scan_in_chunk() saw of one top-level member of an object (the last one named `key`).
  struct MemberPeek {
    std::string_view key;      // the member looked for (plain ASCII)
    bool found = false;        // a member of that name was seen (the last one counts)
    bool is_string = false;    // ... and its value is a string
    std::string_view raw;      // ... whose bytes between the quotes, escapes not decoded, are these
    bool escaped_key = false;  // a top-level key had an escape (it might decode to `key`)
  };
  // The fast path of skip_value() for a value held wholly in the chunk (json_pull_skip.cpp): checks it by
  // the same rules in one tight loop and, for an object, fills `peek`; nothing is consumed until
  // skip_scanned(). False, with nothing consumed, when the value runs past the chunk end, nests deeper
  // than kFastDepth, holds a number that needs converting to be checked, or is invalid: the slow path then
  // reads it and names the error exactly as before.
  bool scan_in_chunk(MemberPeek* peek);
  void skip_scanned() { p_ = scanned_end_; }
  static constexpr int kFastDepth = 32;
  void expect_end();  // only whitespace after the top value, or a NUL byte (nlohmann ignored what follows)

  bool had_byte_order_mark() const { return bom_; }
  std::uint64_t offset() const { return base_ + static_cast<std::uint64_t>(p_ - begin_); }
  std::uint64_t bytes_read() const { return base_ + static_cast<std::uint64_t>(end_ - begin_); }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  bool refill();  // next chunk; false at the end of the text
  int peek_char() {
    if (p_ == end_ && !refill()) return -1;
    return static_cast<unsigned char>(*p_);
  }
  // The next non-blank byte (not consumed), -1 at the end.
  int skip_ws() {
    if (p_ < end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c > ' ') return c;
    }
    return skip_ws_slow();
  }
  int skip_ws_slow();
  void expect_char(char c, const char* what);
  void after_value();  // the ',' or closing bracket after a member or element
  void scan_string(std::string* out, std::size_t max_keep, bool* cut);
  void scan_utf8(unsigned char lead, std::string* out);
  unsigned read_hex4();
  Number scan_number(bool keep);
  bool scan_number_in_chunk(bool keep, Number& n);  // the fast path: a number that ends inside the chunk
  Number convert_number(const char* b, const char* e, bool neg, bool is_float, std::size_t int_digits,
                        std::int64_t exp, bool keep);
  void scan_literal();

  Source source_;
  const char* begin_ = nullptr;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::uint64_t base_ = 0;  // offset of begin_ in the text
  bool at_start_ = true, eof_ = false, bom_ = false;
  // Open containers: '{' or '[', with whether a member or element was read ('1') or not yet ('0').
  std::vector<char> open_;
  std::string token_;                  // a number being read
  std::string* keep_text_ = nullptr;   // read_number_text(): where the number's text goes
  const char* scanned_end_ = nullptr;  // scan_in_chunk(): where the value it checked ends
};

}  // namespace oomscope::snapshot::detail
