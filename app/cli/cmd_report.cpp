// `oomscope-cli report CAPTURE...`: explain the peak. Plan, runtime and diagnosis of each capture file (one
// host per file), as text for people and optionally as JSON (docs/report-json.md).

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "app/cli/command.h"
#include "app/cli/other_formats.h"
#include "app/cli/report_json.h"
#include "core/analysis/report.h"
#include "core/analysis/report_text.h"
#include "core/capture/reader.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

namespace {

const char* kUsage =
    "usage: oomscope-cli report CAPTURE... [--module NAME|ID] [--top N] [--capacity BYTES] [--json FILE|-]\n"
    "\n"
    "Explains the memory peak of a JAX/XLA profiler capture (.xplane.pb): the plan of the analysed module\n"
    "(parameters, donation, temp block, heap peak, buffers live at the peak with role and source line), the\n"
    "runtime (allocators, executions, AllocatorRetry, growth per execution, what was live when the last\n"
    "execution started) and diagnosis lines with fixes, each figure labelled read, measured or derived.\n"
    "\n"
    "  CAPTURE          a .xplane.pb or .xplane.pb.gz file, or a folder searched for them; several files of\n"
    "                   one multi-host run are reported per host. A bare <module>(<id>).hlo_proto.pb gets\n"
    "                   the plan only\n"
    "  --module NAME|ID the module to analyse: name, name(id) or program id (default: the module whose last\n"
    "                   execution never started, else the largest executed module, else the largest)\n"
    "  --top N          rows per list (default 25)\n"
    "  --capacity BYTES check the plan against a pool of this size (integer bytes, or with a unit: 2.79GiB,\n"
    "                   512MiB, 16GB)\n"
    "  --json FILE|-    also write the report as JSON to FILE, or only JSON to stdout with '-'; the file "
    "may\n"
    "                   not be inside a capture's folder (symbolic links followed); it is written whole to "
    "a\n"
    "                   temporary file first, then renamed over FILE\n"
    "\n"
    "Exit codes: 0 every capture reported; 1 none could be read (bad input); 2 bad arguments; 5 some "
    "captures\n"
    "were reported and others could not be read (each is named on stderr and in the report).\n";

std::int64_t parse_bytes(const std::string& text) {
  double value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || !std::isfinite(value) || value < 0)
    throw UsageError{"--capacity: '" + text + "' is not a byte count"};
  std::string unit(ptr, end);
  std::transform(unit.begin(), unit.end(), unit.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  double scale = 1;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "kib" || unit == "k")
    scale = 1024.0;
  else if (unit == "mib" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "gib" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "tib" || unit == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "kb")
    scale = 1e3;
  else if (unit == "mb")
    scale = 1e6;
  else if (unit == "gb")
    scale = 1e9;
  else if (unit == "tb")
    scale = 1e12;
  else
    throw UsageError{"--capacity: unknown unit '" + std::string(ptr, end) + "'"};
  const double bytes = value * scale;
  if (bytes > 9.2e18) throw UsageError{"--capacity: '" + text + "' is too large"};
  if (scale == 1 && value != std::floor(value))
    throw UsageError{"--capacity: '" + text +
                     "' is a fraction of a byte; give whole bytes or a unit (2.79GiB)"};
  if (bytes < 1) throw UsageError{"--capacity: '" + text + "' is not a pool; give at least one byte"};
  return static_cast<std::int64_t>(bytes + 0.5);
}

// Files named on the command line, folders expanded to the .xplane.pb files under them (sorted).
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (const std::string name = it->path().filename().string();
          it->is_regular_file(ec) && (name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz")))
        found.push_back(it->path().string());
    if (found.empty())
      throw Error(ErrorKind::NotFound, in, "the folder holds no .xplane.pb or .xplane.pb.gz capture");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// True when `inner` is `outer` or lies below it.
bool within(const fs::path& inner, const fs::path& outer) {
  auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end();
}

// The report never goes into a capture's folder or below it (XProf's own converters litter it; we do not).
// Both sides have every symbolic link resolved, dangling ones included, so no link leads the file there.
void refuse_capture_folder(const std::string& json_path, const std::vector<std::string>& captures) {
  const fs::path target = resolve_all_links(json_path).parent_path();
  for (const std::string& c : captures) {
    const fs::path folder = resolve_all_links(c).parent_path();
    if (within(target, folder))
      throw Error(ErrorKind::InvalidArgument, json_path,
                  "will not write into the capture's folder " + folder.string() + "; choose another path");
  }
}

struct Failure {
  std::string file;
  std::string message;
};

// One report per input; a file that cannot be read is a Failure and the others are still reported.
analysis::HostReport report_one(const std::string& f, const analysis::ReportOptions& options) {
  if (f.ends_with(".hlo_proto.pb")) {
    const capture::Module module = capture::read_hlo_proto_file(f);
    std::error_code ec;
    const auto size = fs::file_size(f, ec);
    return analysis::build_plan_report(module, f, ec ? 0 : size, options);
  }
  auto capture = capture::read_capture(f);
  return analysis::build_host_report(*capture, options);
}

int run_report(const std::vector<std::string>& args) {
  analysis::ReportOptions options;
  std::vector<std::string> inputs;
  std::optional<std::string> json_path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--module") {
      options.module = value();
    } else if (a == "--top") {
      const std::string& v = value();
      std::size_t n = 0;
      auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || ptr != v.data() + v.size() || n == 0)
        throw UsageError{"--top: '" + v + "' is not a positive number"};
      options.top = n;
    } else if (a == "--capacity") {
      options.capacity = parse_bytes(value());
    } else if (a == "--json") {
      json_path = value();
      if (json_path->empty()) throw UsageError{"--json needs a file name, or '-' for standard output"};
    } else if (a.starts_with("--")) {
      throw UsageError{"unknown option " + a};
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) throw UsageError{"name at least one capture"};
  const std::vector<std::string> files = expand_inputs(inputs);
  if (json_path && *json_path != "-") refuse_capture_folder(*json_path, files);
  if (auto rc = report_other_formats(files, json_path, options.top))
    return *rc;  // snapshots, traces, ... (by content)

  std::vector<analysis::HostReport> reports;
  std::vector<Failure> failures;
  std::vector<std::pair<dev_t, ino_t>> seen;  // the same file given twice (or through a link) is read once
  for (const std::string& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0) {
      const auto key = std::pair(st.st_dev, st.st_ino);
      const auto it = std::find(seen.begin(), seen.end(), key);
      if (it != seen.end()) {
        const auto first = static_cast<std::size_t>(it - seen.begin());
        for (analysis::HostReport& r : reports)
          if (r.path == files[first])
            r.problems.push_back("the same file was given again as " + f + "; it is reported once");
        seen.emplace_back(0, 0);
        continue;
      }
      seen.push_back(key);
    } else {
      seen.emplace_back(0, 0);
    }
    try {
      reports.push_back(report_one(f, options));
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      if (files.size() == 1) throw;
      failures.push_back({f, e.message()});
      std::cerr << "oomscope-cli: error: " << terminal_safe(e.what()) << "\n";
    }
  }
  if (reports.empty()) return 1;  // every file failed; each was named on stderr
  analysis::add_multi_host_limits(reports);
  const int code = failures.empty() ? 0 : 5;

  const auto json_text = [&] {
    nlohmann::json j = report_to_json(reports, options);
    j["failed"] = nlohmann::json::array();
    for (const Failure& f : failures) j["failed"].push_back({{"file", f.file}, {"error", f.message}});
    // Names in a capture are bytes, not always UTF-8: invalid bytes become U+FFFD instead of failing.
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  };
  if (json_path && *json_path == "-") {
    std::cout << json_text();
    return code;
  }
  std::ostringstream text;
  analysis::write_report_text(text, reports, options.top);
  for (const Failure& f : failures) text << "\n== " << f.file << "\nnot reported: " << f.message << "\n";
  std::cout << terminal_safe(text.str()) << std::flush;
  if (json_path) {
    const WriteResult written = write_file_atomically(*json_path, json_text());
    if (written.replaced)
      std::cerr << "oomscope-cli: replaced the existing " << terminal_safe(*json_path) << "\n";
  }
  return code;
}

}  // namespace

OOMSCOPE_COMMAND(Command{"report", "explain the memory peak of a JAX/XLA capture (plan, runtime, diagnosis)",
                         kUsage, run_report});

}  // namespace oomscope::cli
