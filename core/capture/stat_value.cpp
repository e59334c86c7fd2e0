// StatValue accessors and the decoding of raw XStats into named Stats.

#include <cmath>
#include <limits>

#include "core/capture/detail/capture_internals.h"

namespace oomscope::capture {

namespace {
template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;
}  // namespace

bool StatValue::is_number() const {
  return std::holds_alternative<std::int64_t>(value) || std::holds_alternative<std::uint64_t>(value) ||
         std::holds_alternative<double>(value);
}

bool StatValue::is_string() const { return std::holds_alternative<std::string>(value); }

std::optional<std::int64_t> StatValue::as_int() const {
  return std::visit(Overloaded{
                        [](std::int64_t v) -> std::optional<std::int64_t> { return v; },
                        [](std::uint64_t v) -> std::optional<std::int64_t> {
                          if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                            return std::numeric_limits<std::int64_t>::max();
                          return static_cast<std::int64_t>(v);
                        },
                        [](double v) { return saturating_to_int(v); },
                        [](const auto&) -> std::optional<std::int64_t> { return std::nullopt; },
                    },
                    value);
}

std::optional<std::uint64_t> StatValue::as_uint() const {
  return std::visit(
      Overloaded{
          // A negative int64 is the same 64 bits as the uint64 the writer meant (addresses,
          // TPU program fingerprints); keep the bits.
          [](std::int64_t v) -> std::optional<std::uint64_t> { return static_cast<std::uint64_t>(v); },
          [](std::uint64_t v) -> std::optional<std::uint64_t> { return v; },
          [](double v) -> std::optional<std::uint64_t> {
            if (std::isnan(v) || v < 0) return std::nullopt;
            if (v >= 1.8446744073709552e19) return std::numeric_limits<std::uint64_t>::max();
            return static_cast<std::uint64_t>(v);
          },
          [](const auto&) -> std::optional<std::uint64_t> { return std::nullopt; },
      },
      value);
}

std::optional<double> StatValue::as_double() const {
  return std::visit(Overloaded{
                        [](std::int64_t v) -> std::optional<double> { return static_cast<double>(v); },
                        [](std::uint64_t v) -> std::optional<double> { return static_cast<double>(v); },
                        [](double v) -> std::optional<double> { return v; },
                        [](const auto&) -> std::optional<double> { return std::nullopt; },
                    },
                    value);
}

std::string_view StatValue::as_string() const {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  return {};
}

std::string_view StatValue::as_bytes() const {
  if (const auto* s = std::get_if<std::string_view>(&value)) return *s;
  return {};
}

std::string_view raw_stat_string(const RawStat& s, const std::map<std::int64_t, std::string>& names) {
  if (s.kind == RawStat::Kind::Str) return s.s;
  if (s.kind == RawStat::Kind::Ref) {
    auto it = names.find(static_cast<std::int64_t>(s.u));
    if (it != names.end()) return it->second;
  }
  return {};
}

Stat to_stat(const RawStat& s, const std::map<std::int64_t, std::string>& names) {
  Stat out;
  if (auto it = names.find(s.metadata_id); it != names.end()) out.name = it->second;
  switch (s.kind) {
    case RawStat::Kind::None:
      break;
    case RawStat::Kind::Int:
      out.value.value = s.i;
      break;
    case RawStat::Kind::Uint:
      out.value.value = s.u;
      break;
    case RawStat::Kind::Double:
      out.value.value = s.d;
      break;
    case RawStat::Kind::Str:
      out.value.value = std::string(s.s);
      break;
    case RawStat::Kind::Bytes:
      out.value.value = s.s;
      break;
    case RawStat::Kind::Ref:
      out.value.value = std::string(raw_stat_string(s, names));
      break;
  }
  return out;
}

}  // namespace oomscope::capture
