#pragma once
// Enum names and parsers from one table. An enum's names are written once, as a constexpr table next to the
// enum; `enum_name` and `parse_enum` read it, so a name and its parser can never disagree:
//
//   enum class Colour { Red, Green };
//   inline constexpr EnumName<Colour> kColourNames[] = {{Colour::Red, "red"}, {Colour::Green, "green"}};
//   static_assert(names_every_value(kColourNames, Colour::Green));
//
//   enum_name(kColourNames, Colour::Green)  -> "green"
//   parse_enum(kColourNames, "red")         -> Colour::Red
//
// A value may appear more than once: its first entry is its name, later ones are aliases that only the
// parser accepts. UI code iterates the same table to fill a combo box.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace oomscope {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

// The value's (first) name in the table, or `fallback` for a value the table lacks.
template <typename E, std::size_t N>
constexpr const char* enum_name(const EnumName<E> (&table)[N], E value,
                                const char* fallback = "unknown") noexcept {
  for (const EnumName<E>& e : table)
    if (e.value == value) return e.name;
  return fallback;
}

// The value whose name (or alias) is exactly `text`; nullopt for anything else.
template <typename E, std::size_t N>
constexpr std::optional<E> parse_enum(const EnumName<E> (&table)[N], std::string_view text) noexcept {
  for (const EnumName<E>& e : table)
    if (text == e.name) return e.value;
  return std::nullopt;
}

// True when every value from 0 to `last` (an enum numbered from 0 without gaps) has a name in the table;
// meant for a static_assert beside the table, so a new enumerator without a name fails to compile.
template <typename E, std::size_t N>
constexpr bool names_every_value(const EnumName<E> (&table)[N], E last) noexcept {
  for (std::size_t v = 0; v <= static_cast<std::size_t>(last); ++v) {
    bool found = false;
    for (const EnumName<E>& e : table) found = found || static_cast<std::size_t>(e.value) == v;
    if (!found) return false;
  }
  return true;
}

// "a, b or c": the table's names (aliases left out), for error messages that list the accepted values.
template <typename E, std::size_t N>
std::string enum_choices(const EnumName<E> (&table)[N]) {
  std::string out;
  std::size_t count = 0;
  for (std::size_t i = 0; i < N; ++i)
    if (enum_name(table, table[i].value, nullptr) == table[i].name) ++count;
  std::size_t written = 0;
  for (std::size_t i = 0; i < N; ++i) {
    if (enum_name(table, table[i].value, nullptr) != table[i].name) continue;  // an alias
    if (written > 0) out += written + 1 == count ? " or " : ", ";
    out += table[i].name;
    ++written;
  }
  return out;
}

}  // namespace oomscope
