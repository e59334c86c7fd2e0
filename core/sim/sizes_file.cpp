#include "core/sim/sizes_file.h"

// Scene sizes from a file of real point counts: one integer per line, or CSV with a `size` column.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/sim/scene.h"
#include "core/util/error.h"

namespace oomscope::sim {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == ',') {
      fields.push_back(trim(line.substr(start, i - start)));
      start = i + 1;
    }
  }
  return fields;
}

// A count as a number: "120000", "-3", "1e5", "2.5E4" (the header test: a first line like this is data).
bool is_integer_text(std::string_view s) {
  if (s.empty()) return false;
  if (s.front() == '-' || s.front() == '+') s.remove_prefix(1);
  double d = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  return !s.empty() && s.front() >= '0' && s.front() <= '9' && r.ptr == s.data() + s.size();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

[[noreturn]] void fail(const std::string& name, std::size_t line, const std::string& what) {
  throw Error(ErrorKind::Damaged, name, "line " + std::to_string(line) + ": " + what);
}

std::int64_t parse_count(std::string_view field, const std::string& name, std::size_t line) {
  std::int64_t value = 0;
  const auto* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec == std::errc() && ptr != end && (*ptr == 'e' || *ptr == 'E' || *ptr == '.')) {
    // Scientific or decimal notation ("1e5", "2.5e4", "120000.0"), as spreadsheets write counts: a number
    // like any other, as long as it is a whole count.
    double d = 0;
    const auto r = std::from_chars(field.data(), end, d);
    if (r.ptr != end || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
      fail(name, line, "'" + std::string(field) + "' is not a point count (expected a positive integer)");
    if (r.ec == std::errc::result_out_of_range || d > double(kMaxScenePoints))
      fail(name, line,
           "point count '" + std::string(field) +
               "' is larger than 100,000,000 (the most one scene may have)");
    if (d != std::floor(d))
      fail(name, line, "point count '" + std::string(field) + "' is not a whole number");
    value = static_cast<std::int64_t>(d);
    ptr = end;
    ec = std::errc();
  }
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == end && value > kMaxScenePoints))
    fail(name, line,
         "point count '" + std::string(field) + "' is larger than 100,000,000 (the most one scene may have)");
  if (ec != std::errc() || ptr != end)
    fail(name, line, "'" + std::string(field) + "' is not a point count (expected a positive integer)");
  if (value < 1) fail(name, line, "point count must be positive, got " + std::string(field));
  return value;
}

}  // namespace

std::vector<std::int64_t> parse_scene_sizes(std::string_view text, const std::string& name) {
  std::vector<std::int64_t> sizes;
  std::optional<std::size_t> size_column;  // set once a CSV header was seen
  std::size_t header_fields = 0;
  bool first_data_line = true;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // UTF-8 byte order mark from spreadsheet exports
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    const auto fields = split_csv(line);
    if (first_data_line) {
      first_data_line = false;
      if (fields.size() > 1 || !is_integer_text(fields[0])) {
        for (std::size_t i = 0; i < fields.size(); ++i) {
          const std::string f = lower(fields[i]);
          if (f == "size" || f == "points" || f == "num_points" || f == "n_points") {
            size_column = i;
            break;
          }
        }
        if (!size_column) {
          std::string cols;
          for (const auto& f : fields) cols += (cols.empty() ? "" : ", ") + std::string(f);
          fail(name, line_no, "no 'size' column in the CSV header (columns: " + cols + ")");
        }
        header_fields = fields.size();
        continue;
      }
    }
    if (size_column) {
      if (fields.size() != header_fields)
        fail(name, line_no,
             "has " + std::to_string(fields.size()) + " fields, the header has " +
                 std::to_string(header_fields));
      sizes.push_back(parse_count(fields[*size_column], name, line_no));
    } else {
      if (fields.size() != 1) fail(name, line_no, "expected one point count per line");
      sizes.push_back(parse_count(fields[0], name, line_no));
    }
  }
  if (sizes.empty()) throw Error(ErrorKind::Empty, name, "no scene sizes in the file");
  return sizes;
}

std::vector<std::int64_t> read_scene_sizes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(ErrorKind::NotFound, path, "no such file");
  if (std::filesystem::is_directory(path, ec))
    throw Error(ErrorKind::Io, path, "is a directory, not a sizes file");
  // 10,000,000 sizes (the most the simulator takes) fit in well under 256 MiB of text; refusing a larger
  // file up front keeps a wrong file (a capture, a log) from being read into memory whole.
  const auto bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > (std::uintmax_t{256} << 20))
    throw Error(
        ErrorKind::TooLarge, path,
        "is " + std::to_string(bytes >> 20) + " MiB; a sizes file holds at most 10,000,000 counts (256 MiB)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open the sizes file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::Io, path, "cannot read the sizes file");
  const std::string text = buffer.str();
  if (text.empty()) throw Error(ErrorKind::Empty, path, "the sizes file is empty");
  return parse_scene_sizes(text, path);
}

}  // namespace oomscope::sim
