// `oomscope-cli info CAPTURE [--json]`: what a capture holds (hosts, planes, the memory plan of every
// module, allocator figures, retries, executions). The JSON form is a stable interface (docs/cli-json.md).

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/capture_inputs.h"
#include "app/cli/command.h"
#include "app/cli/command_documents.h"
#include "app/cli/recording_info.h"
#include "core/capture/reader.h"
#include "core/live/client/replay.h"
#include "core/snapshot/category_rules.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

namespace {

// Progress on a terminal only: a redirected stderr (CI logs, pipes) stays clean.
class TerminalProgress final : public ProgressSink {
 public:
  void report(double fraction, std::string_view stage) override {
    const int percent = static_cast<int>(fraction * 100.0);
    if (percent == last_) return;
    last_ = percent;
    std::fprintf(stderr, "\r%-16.*s %3d%%", static_cast<int>(stage.size()), stage.data(), percent);
    if (percent >= 100) std::fprintf(stderr, "\r%24s\r", "");
    std::fflush(stderr);
  }

 private:
  int last_ = -1;
};

struct InfoOptions {
  std::string path;
  bool json = false;
  std::optional<std::string> categories;
};

int run_info_file(const std::string& path, bool json) {
  NullProgress none;
  std::optional<Rendered> out;
  if (live::looks_like_recording(path))  // a live recording (watch --record): recording_info.h
    out = recording_info_document(path, {});
  else
    out = info_other_format(path, none, {});  // snapshots, Kineto traces, pprof, ...
  if (!out) {
    std::shared_ptr<const capture::Capture> cap;
    if (::isatty(STDERR_FILENO)) {
      TerminalProgress progress;
      cap = capture::read_capture(path, progress);
    } else {
      cap = capture::read_capture(path);
    }
    out = info_rendered(*cap);
  }
  // Invalid UTF-8 in names becomes U+FFFD in JSON; the text has control characters escaped already.
  if (json)
    std::cout << out->json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  else
    std::cout << out->text;
  if (out->complaint.empty()) return 0;
  std::cerr << "oomscope-cli: " << terminal_safe(out->complaint) << "\n";
  return 1;
}

// A folder is read as `report` reads it: every .xplane.pb(.gz) under it, one summary each (with --json, an
// array of them): info_document.
// With --categories, a folder that is not the ranks of one job, or a file, is a usage error
// (info_document); the rules file is read first, so its own errors come first (exit 1).
int run_info(const InfoOptions& o) {
  std::optional<snapshot::CategoryRules> rules;
  if (o.categories) rules = snapshot::CategoryRules::read(*o.categories);
  std::error_code ec;
  if (!rules && !std::filesystem::is_directory(o.path, ec)) return run_info_file(o.path, o.json);
  NullProgress none;
  const Rendered all = info_document(o.path, none, {}, rules ? &*rules : nullptr);
  if (o.json)
    std::cout << all.json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  else
    std::cout << all.text;
  return 0;
}

Runner define_info(CLI::App& app) {
  auto o = std::make_shared<InfoOptions>();
  app.footer(
      "Summarises a profiler capture (.xplane.pb): hosts, planes, the memory plan of every XLA module\n"
      "(parameters, donated, outputs, temp, total allocation), allocator figures, AllocatorRetry waits and\n"
      "execution spans. PyTorch snapshots, Kineto traces, pprof files and live recordings (watch --record)\n"
      "are recognised by content.");
  app.add_option("CAPTURE", o->path, "the capture file, or a folder: each capture under it in turn")
      ->required()
      ->type_name("FILE");
  app.add_flag("--json", o->json,
               "print JSON instead of text (the fields are documented in docs/cli-json.md)");
  app.add_option("--categories", o->categories,
                 "a folder of per-rank PyTorch snapshots: categorise each rank's live memory by the\n"
                 "regular expressions in FILE first (TARGET REGEX -> CATEGORY a line; docs/categories.md)")
      ->type_name("FILE");
  return [o] { return run_info(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"info", "summarise a capture: planes, modules and their memory plan, allocators",
                         define_info});

}  // namespace oomscope::cli
