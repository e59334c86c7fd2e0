// `oomscope-cli report CAPTURE...`: explain the peak. Plan, runtime and diagnosis of each capture file (one
// host per file), as text for people and optionally as JSON (docs/report-json.md).

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/capture_inputs.h"
#include "app/cli/command.h"
#include "app/cli/command_documents.h"
#include "core/analysis/report/report.h"
#include "core/snapshot/category_rules.h"
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
    if (c == "-") continue;  // standard input has no folder
    const fs::path folder = resolve_all_links(c).parent_path();
    if (within(target, folder))
      throw Error(ErrorKind::InvalidArgument, json_path,
                  "will not write into the capture's folder " + folder.string() + "; choose another path");
  }
}

struct ReportCommandOptions {
  analysis::ReportOptions report;
  std::vector<std::string> inputs;
  std::optional<std::string> json_path;
  std::optional<std::string> categories;
};

int run_report(const ReportCommandOptions& o) {
  const analysis::ReportOptions& options = o.report;
  const std::vector<std::string>& inputs = o.inputs;
  const std::optional<std::string>& json_path = o.json_path;
  std::vector<std::string> files = expand_capture_inputs(inputs);
  if (json_path && *json_path != "-") refuse_capture_folder(*json_path, files);
  NullProgress none;
  std::optional<snapshot::CategoryRules> rules;
  if (o.categories) rules = snapshot::CategoryRules::read(*o.categories);
  const ReportDocument doc = report_document(
      files, options, none, {},
      [](const Error& e) { std::cerr << "oomscope-cli: error: " << terminal_safe(e.what()) << "\n"; },
      rules ? &*rules : nullptr);
  if (!doc.reported) return doc.exit_code;  // every file failed; each was named on stderr
  // Names in a capture are bytes, not always UTF-8: invalid bytes become U+FFFD instead of failing.
  const auto json_text = [&] {
    return doc.out.json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  };
  const auto complain = [&] {
    if (!doc.out.complaint.empty()) std::cerr << "oomscope-cli: " << terminal_safe(doc.out.complaint) << "\n";
  };
  if (json_path && *json_path == "-") {
    std::cout << json_text();
    complain();
    return doc.exit_code;
  }
  std::cout << doc.out.text << std::flush;
  if (json_path) {
    // Written whole to a temporary file in the target's folder, then renamed over it (atomic_file.h).
    const WriteResult written = write_file_atomically(*json_path, json_text());
    if (written.replaced)
      std::cerr << "oomscope-cli: replaced the existing " << terminal_safe(*json_path) << "\n";
  }
  complain();
  return doc.exit_code;
}

Runner define_report(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  app.footer(
      "Explains the memory peak of a JAX/XLA profiler capture (.xplane.pb): the plan of the analysed module\n"
      "(parameters, donation, temp block, heap peak, buffers live at the peak with role and source line), "
      "the\n"
      "runtime (allocators, executions, AllocatorRetry, growth per execution, what was live when the last\n"
      "execution started) and diagnosis lines with fixes, each figure labelled read, measured or derived.\n"
      "PyTorch snapshots, Kineto traces, pprof files and text logs of a failed run (every out-of-memory\n"
      "message of PyTorch, XLA, TensorFlow, vLLM and NCCL; docs/logs.md) are recognised by content; '-'\n"
      "reads a log from standard input, and a log beside captures is reported after them. Several\n"
      "snapshots that are the ranks of one job (rank numbers in their names, else one device each; a\n"
      "folder with no capture gives its .pickle files) are compared as one job: ranks table, verdict,\n"
      "imbalance (docs/cli.md). A live recording (watch --record) alone has its ranks compared the same "
      "way.\n"
      "\n"
      "Exit codes: 0 every capture reported; 1 none could be read (bad input); 2 bad arguments; 5 some\n"
      "captures were reported and others could not be read (each is named on stderr and in the report).");
  app.add_option("CAPTURE", o->inputs,
                 "a .xplane.pb or .xplane.pb.gz file, or a folder searched for them; several files of\n"
                 "one multi-host run are reported per host. A bare <module>(<id>).hlo_proto.pb gets\n"
                 "the plan only. A text log (or '-' for standard input) gets its out-of-memory messages")
      ->required()
      ->type_name("FILE");
  app.add_option_function<std::string>(
         "--module", [o](const std::string& m) { o->report.module = m; },
         "the module to analyse: name, name(id) or program id (default: the module whose last\n"
         "execution never started, else the largest executed module, else the largest)")
      ->type_name("NAME|ID");
  add_count(app, "--top", o->report.top, "rows per list (default 25)");
  app.add_option_function<std::string>(
         "--at",
         [o](const std::string& text) {
           const std::int64_t at = parse_position("--at", text);
           o->report.plan_range = std::pair(at, at);
         },
         "show the analysed module's plan at this program position instead of at its peak: the\n"
         "index of an event of its heap-simulator trace, from 0, as XProf's memory viewer numbers\n"
         "program order; what is live just after that event, its role split and its diagnosis")
      ->type_name("POSITION");
  app.add_option_function<std::string>(
         "--capacity",
         [o](const std::string& text) { o->report.capacity = parse_capacity("--capacity", text); },
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
  app.add_option("--categories", o->categories,
                 "PyTorch snapshots: categorise live memory by the regular expressions in FILE first\n"
                 "(TARGET REGEX -> CATEGORY a line; docs/categories.md)")
      ->type_name("FILE");
  return [o] { return run_report(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"report", "explain the memory peak of a JAX/XLA capture (plan, runtime, diagnosis)",
                         define_report});

}  // namespace oomscope::cli
