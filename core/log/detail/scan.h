#pragma once
// Small text helpers of the log reader: trimming, searching, and reading the figures each framework prints
// (scan.cpp). Sizes follow docs/logs.md "Units": every framework the reader knows prints binary
// units whatever their spelling (PyTorch's MPS allocator writes "GB" for 2^30 bytes, XLA "G", TensorFlow
// "GiB", torch.cuda.memory_summary "GiB" or "GB" with the value floored).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/log/log.h"

namespace oomscope::log::detail {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

inline bool contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

// The text after the first `what` in `s`, or nullopt.
inline std::optional<std::string_view> after(std::string_view s, std::string_view what) {
  const std::size_t p = s.find(what);
  if (p == std::string_view::npos) return std::nullopt;
  return s.substr(p + what.size());
}

// A decimal number at the start of `s` (after spaces): digits with an optional sign, '.', and thousands
// commas ("6,532,939,776"). Sets `used` to the characters read; nullopt when there is no digit.
struct Number {
  double value = 0;
  std::int64_t integer = 0;  // when `is_integer`
  bool is_integer = true;
  int decimals = 0;
  std::size_t used = 0;
};
std::optional<Number> read_number(std::string_view s);

// How a size's unit letters are read. Every rule is binary (1024); they differ in the spellings they accept
// and in how a printed value relates to the true one.
enum class SizeRule {
  Rounded,  // printed with decimals, rounded to nearest (PyTorch, MPS, XLA, TensorFlow, vLLM)
  Floored,  // an integer after integer division by the unit (torch.cuda.memory_summary)
};

// A size such as "1.78 GiB", "0 bytes", "48.5KiB", "8.83G", "459.07 MB", "6291456 bytes", "0B" at the start
// of `s` (after spaces). The figure's value is the printed number times the unit, rounded to a byte; its
// error is half a unit of the last printed digit (Rounded) or one unit (Floored, the value is a lower bound).
std::optional<Figure> read_size(std::string_view s, std::string key, SizeRule rule = SizeRule::Rounded,
                                std::size_t* used = nullptr);
// The size right after the first `marker` in `s`.
std::optional<Figure> size_after(std::string_view s, std::string_view marker, std::string key,
                                 SizeRule rule = SizeRule::Rounded);
// An integer right after `marker` (thousands commas allowed): a count, or bytes when `bytes` is set.
std::optional<Figure> integer_after(std::string_view s, std::string_view marker, std::string key, bool bytes);

// Adds `f` to `m` when it is set (a later figure with the same key is kept too: the first one wins in
// Message::figure()).
void add(Message& m, std::optional<Figure> f);

// The exception named before position `at` of `text`: the last "NameError:" / "NameException:" token
// ("torch.cuda.OutOfMemoryError", "jaxlib.xla_extension.XlaRuntimeError"), or "".
std::string exception_before(std::string_view text, std::size_t at);

// The value of `name="..."` in `text` ("op_name=", "source_file="), or "".
std::string quoted_attr(std::string_view text, std::string_view name);

// A peak buffer's "Operator: op_name=... source_line=N" or "Shape: f32[...]" line (XLA GPU dumps and TPU
// reports print both alike) read into `b`; false for any other line.
bool read_operator_or_shape(PeakBuffer& b, std::string_view t);

// The first `max` bytes of `s`, cut at a UTF-8 character boundary.
std::string clip(std::string_view s, std::size_t max);

}  // namespace oomscope::log::detail
