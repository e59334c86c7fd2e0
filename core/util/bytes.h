#pragma once
// Byte figures for people: binary units with three significant figures ("3.72 GiB", "104 MiB", "512 B").
// Exact byte counts stay integers everywhere else (JSON, exports, tooltips).

#include <cstdint>
#include <string>

namespace oomscope {

std::string format_bytes(std::int64_t bytes);
std::string format_bytes(std::uint64_t bytes);
// Exact bytes with thousands separators: "3,495,000,000".
std::string format_bytes_exact(std::int64_t bytes);

}  // namespace oomscope
