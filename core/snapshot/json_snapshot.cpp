// JSON -> data-only pickle, streamed: nlohmann's SAX parser calls back for each value and the pickle
// opcodes are appended as they come, so no JSON tree is ever built (a snapshot's JSON is several times the
// size of its pickle once parsed into a DOM).

#include "core/snapshot/json_snapshot.h"

#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/snapshot/pickle_reader.h"
#include "core/util/error.h"

namespace oomscope::snapshot {

namespace {

// Pickle opcodes (protocol 2).
constexpr char kProto = '\x80', kStop = '.', kNone = 'N', kTrue = '\x88', kFalse = '\x89';
constexpr char kBinInt = 'J', kLong1 = '\x8a', kBinFloat = 'G', kBinUnicode = 'X';
constexpr char kEmptyDict = '}', kEmptyList = ']', kMark = '(', kSetItems = 'u', kAppends = 'e';

class PickleWriter final : public nlohmann::json_sax<nlohmann::json> {
 public:
  PickleWriter(std::string& out, const std::string& name, std::stop_token stop)
      : out_(out), name_(name), stop_(std::move(stop)) {
    out_ += kProto;
    out_ += '\x02';
  }

  bool null() override {
    return value([this] { out_ += kNone; });
  }
  bool boolean(bool v) override {
    return value([this, v] { out_ += v ? kTrue : kFalse; });
  }
  bool number_integer(number_integer_t v) override {
    return value([this, v] { integer(v); });
  }
  bool number_unsigned(number_unsigned_t v) override {
    return value([this, v] {
      if (v <= static_cast<std::uint64_t>(INT64_MAX)) {
        integer(static_cast<std::int64_t>(v));
        return;
      }
      out_ += kLong1;  // 8 bytes little-endian and a zero byte, so the value stays positive
      out_ += '\x09';
      append_le(v, 8);
      out_ += '\0';
    });
  }
  bool number_float(number_float_t v, const string_t&) override {
    return value([this, v] {
      out_ += kBinFloat;
      append_be(std::bit_cast<std::uint64_t>(v), 8);
    });
  }
  bool string(string_t& s) override {
    return value([this, &s] { str(s); });
  }
  bool binary(binary_t&) override {
    throw Error(ErrorKind::Damaged, name_, "binary values are not JSON");  // only from CBOR and the like
  }
  bool key(string_t& s) override {
    str(s);
    return true;
  }
  bool start_object(std::size_t) override { return open(kEmptyDict); }
  bool end_object() override { return close(kSetItems); }
  bool start_array(std::size_t) override { return open(kEmptyList); }
  bool end_array() override { return close(kAppends); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 5: ...".
    std::string what = e.what();
    if (const auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    throw Error(ErrorKind::Damaged, name_,
                "not valid JSON at byte " + std::to_string(position > 0 ? position - 1 : 0) + ": " + what);
  }

 private:
  template <class Fn>
  bool value(Fn&& write) {
    if ((++events_ & 0xffff) == 0 && stop_.stop_requested()) throw Cancelled(name_);
    write();
    return true;
  }
  bool open(char empty) {
    if (++depth_ > kMaxPickleNesting)
      throw Error(ErrorKind::Damaged, name_,
                  "JSON nested deeper than " + std::to_string(kMaxPickleNesting) +
                      " levels; a memory snapshot needs fewer than 10");
    out_ += empty;
    out_ += kMark;
    return true;
  }
  bool close(char items) {
    --depth_;
    out_ += items;
    return true;
  }
  void integer(std::int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
      out_ += kBinInt;
      append_le(static_cast<std::uint32_t>(static_cast<std::int32_t>(v)), 4);
      return;
    }
    out_ += kLong1;  // two's complement, little-endian
    out_ += '\x08';
    append_le(static_cast<std::uint64_t>(v), 8);
  }
  void str(const std::string& s) {
    if (s.size() > UINT32_MAX)
      throw Error(ErrorKind::Damaged, name_, "a JSON string of " + std::to_string(s.size()) + " bytes");
    out_ += kBinUnicode;
    append_le(static_cast<std::uint32_t>(s.size()), 4);
    out_ += s;
  }
  void append_le(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void append_be(std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }

  std::string& out_;
  const std::string& name_;
  std::stop_token stop_;
  std::size_t depth_ = 0;
  std::uint64_t events_ = 0;
};

}  // namespace

bool looks_like_json(std::string_view bytes) {
  std::size_t p = 0;
  if (bytes.starts_with("\xef\xbb\xbf")) p = 3;  // a UTF-8 byte-order mark
  while (p < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[p]))) ++p;
  return p < bytes.size() && (bytes[p] == '{' || bytes[p] == '[');
}

std::string json_to_pickle(std::string_view json, const std::string& name, std::stop_token stop) {
  if (json.starts_with("\xef\xbb\xbf")) json.remove_prefix(3);
  std::string out;
  out.reserve(json.size() / 2 + 16);
  PickleWriter writer(out, name, std::move(stop));
  nlohmann::json::sax_parse(json.begin(), json.end(), &writer, nlohmann::json::input_format_t::json, true);
  out += kStop;
  return out;
}

}  // namespace oomscope::snapshot
