#pragma once
// Scene sizes from a file the user gives (`--sizes-file`): plain lines or CSV (sizes_file.cpp).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace oomscope::sim {

// A sizes file: one positive integer per line, or CSV whose header has a `size` (or `points`) column.
// Blank lines and lines starting with '#' are skipped. Throws oomscope::Error naming the file and line.
std::vector<std::int64_t> read_scene_sizes(const std::string& path);
// The same, from text already in memory; `name` is used in errors.
std::vector<std::int64_t> parse_scene_sizes(std::string_view text, const std::string& name);

}  // namespace oomscope::sim
