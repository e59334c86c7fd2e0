#pragma once
// Byte sizes: the one parser for sizes people type (CLI options, alert rules, the GUI's capacity field) and
// the one formatter for figures shown to people. Exact byte counts stay integers everywhere else (JSON,
// exports, tooltips).

#include <cstdint>
#include <string>
#include <string_view>

namespace oomscope {

// "3.72 GiB", "104 MiB", "512 B": binary units with three significant figures.
std::string format_bytes(std::int64_t bytes);
std::string format_bytes(std::uint64_t bytes);
// Exact bytes with thousands separators: "3,495,000,000" (format_thousands of the count).
std::string format_bytes_exact(std::int64_t bytes);
// Any count with thousands separators: "1,000", "-12,345", "7" (every int64_t, INT64_MIN included).
std::string format_thousands(std::int64_t n);

// The byte-size grammar (docs/byte-sizes.md):
//   size   = number [" "...] [unit]      surrounding spaces are ignored
//   number = digits ["." digits] | "." digits, with an optional exponent ("4e9", "1.5e3KiB")
//   unit   = B | K | Ki | KiB | KB | M | Mi | MiB | MB | G | Gi | GiB | GB | T | Ti | TiB | TB, any case
// K, Ki, KiB (and M, G, T alike) are binary (1024); KB, MB, GB, TB are decimal (1000). A fractional count
// of bytes ("1.5", "1.5B") is refused; with a larger unit the value is rounded to the nearest byte, and a
// non-zero value that rounds to nothing is refused too. Signs, infinities, values of 8 EiB (2^63 bytes)
// or more and unknown units are refused. Zero is a size; callers that need more say so themselves.
struct ParsedBytes {
  std::int64_t bytes = 0;
  std::string error;  // empty on success; else why, quoting the text ("unknown unit 'gigs' ...")
  explicit operator bool() const { return error.empty(); }
};
ParsedBytes parse_byte_size(std::string_view text);

// The units the grammar accepts, for messages and help text: "B, K/KiB, KB, M/MiB, MB, G/GiB, GB, T/TiB, TB".
extern const char* const kByteUnitsHelp;

}  // namespace oomscope
