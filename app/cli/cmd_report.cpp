// `oomscope-cli report CAPTURE...`: explain the peak. Plan, runtime and diagnosis of each capture file (one
// host per file), as text for people and optionally as JSON (docs/report-json.md).

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/capture_inputs.h"
#include "app/cli/command.h"
#include "app/cli/other_formats.h"
#include "core/analysis/report/report.h"
#include "core/analysis/report/report_json.h"
#include "core/analysis/report/report_text.h"
#include "core/capture/reader.h"
#include "core/util/atomic_file.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

namespace {

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

struct ReportCommandOptions {
  analysis::ReportOptions report;
  std::vector<std::string> inputs;
  std::optional<std::string> json_path;
};

int run_report(const ReportCommandOptions& o) {
  const analysis::ReportOptions& options = o.report;
  const std::vector<std::string>& inputs = o.inputs;
  const std::optional<std::string>& json_path = o.json_path;
  const std::vector<std::string> files = expand_capture_inputs(inputs);
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
    nlohmann::json j = analysis::report_to_json(reports, options);
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

Runner define_report(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  app.footer(
      "Explains the memory peak of a JAX/XLA profiler capture (.xplane.pb): the plan of the analysed module\n"
      "(parameters, donation, temp block, heap peak, buffers live at the peak with role and source line), "
      "the\n"
      "runtime (allocators, executions, AllocatorRetry, growth per execution, what was live when the last\n"
      "execution started) and diagnosis lines with fixes, each figure labelled read, measured or derived.\n"
      "PyTorch snapshots, Kineto traces and pprof files are recognised by content.\n"
      "\n"
      "Exit codes: 0 every capture reported; 1 none could be read (bad input); 2 bad arguments; 5 some\n"
      "captures were reported and others could not be read (each is named on stderr and in the report).");
  app.add_option("CAPTURE", o->inputs,
                 "a .xplane.pb or .xplane.pb.gz file, or a folder searched for them; several files of\n"
                 "one multi-host run are reported per host. A bare <module>(<id>).hlo_proto.pb gets\n"
                 "the plan only")
      ->required()
      ->type_name("FILE");
  app.add_option_function<std::string>(
         "--module", [o](const std::string& m) { o->report.module = m; },
         "the module to analyse: name, name(id) or program id (default: the module whose last\n"
         "execution never started, else the largest executed module, else the largest)")
      ->type_name("NAME|ID");
  add_count(app, "--top", o->report.top, "rows per list (default 25)");
  app.add_option_function<std::string>(
         "--capacity",
         [o](const std::string& text) {
           const ParsedBytes parsed = parse_byte_size(text);
           if (!parsed) throw CLI::ValidationError("--capacity", parsed.error);
           if (parsed.bytes < 1)
             throw CLI::ValidationError("--capacity", "'" + text + "' is not a pool; give at least one byte");
           o->report.capacity = parsed.bytes;
         },
         "check the plan against a pool of this size (integer bytes, or with a unit: 2.79GiB,\n"
         "512MiB, 16GB; docs/byte-sizes.md)")
      ->type_name("BYTES");
  app.add_option_function<std::string>(
         "--json",
         [o](const std::string& path) {
           if (path.empty())
             throw CLI::ValidationError("--json needs a file name, or '-' for standard output");
           o->json_path = path;
         },
         "also write the report as JSON to FILE, or only JSON to stdout with '-'; the file may\n"
         "not be inside a capture's folder (symbolic links followed); it is written whole to a\n"
         "temporary file first, then renamed over FILE")
      ->type_name("FILE");
  return [o] { return run_report(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"report", "explain the memory peak of a JAX/XLA capture (plan, runtime, diagnosis)",
                         define_report});

}  // namespace oomscope::cli
