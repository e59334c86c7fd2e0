#pragma once
// What `info`, `report` and `diff` produce, as functions of their arguments: the text each prints and the
// document each writes with --json (other_formats.h, Rendered). The commands print them; the MCP tools
// (app/cli/mcp_file_tools.cpp) return them, so a tool's structured result is the command's --json output.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "app/cli/capture_inputs.h"
#include "app/cli/other_formats.h"
#include "core/analysis/report/report.h"
#include "core/capture/capture.h"
#include "core/util/error.h"
#include "core/util/progress.h"

namespace oomscope::cli {

// `info`'s two renderings of a capture that is already read.
Rendered info_rendered(const capture::Capture& capture);
// `info PATH`: any kind of file oomscope reads (by content). Throws oomscope::Error naming the file. `rules`
// (--categories) apply to a folder that holds the ranks of one job; with any other PATH, a UsageError.
Rendered info_document(const std::string& path, ProgressSink& progress, const std::stop_token& stop,
                       const snapshot::CategoryRules* rules = nullptr);

struct ReportDocument {
  Rendered out;
  int exit_code = 0;      // 0 every file reported, 5 some failed, 1 none could be read (out is empty then) or
                          // a log holds no out-of-memory error (out.complaint says so)
  bool reported = false;  // false: every file failed
  std::vector<std::string> failures;  // "FILE: message" lines in the order met, also in out.json["failed"]
};

// `report FILES...` (already expanded). A single file that cannot be read throws its oomscope::Error; of
// several, each failure is passed to `on_failure` (the Error) as it happens and the others are reported.
// Throws UsageError when captures and other kinds are mixed. `rules` (a user's category rules,
// docs/categories.md) apply to the snapshots among the files; with none, a UsageError.
ReportDocument report_document(const std::vector<std::string>& inputs, const analysis::ReportOptions& options,
                               ProgressSink& progress, const std::stop_token& stop,
                               const std::function<void(const Error&)>& on_failure,
                               const snapshot::CategoryRules* rules = nullptr);

// report's --at POSITION (an index of the heap-simulator trace, 0 or more), for the command and the MCP
// tool alike: throws CLI::ValidationError(name, why) in the CLI's words.
std::int64_t parse_position(const std::string& name, const std::string& text);

// `diff A B --top N [--categories FILE]`: two PyTorch snapshots (or two Kineto traces, two JAX memory
// profiles, two live recordings: profile_diff_document.h, recording_diff_document.h). The text is written
// unescaped, as `diff` prints it. With `rules`, both are categorised by the user's rules first
// (docs/categories.md).
Rendered diff_document(const std::string& a, const std::string& b, std::size_t top, ProgressSink& progress,
                       const std::stop_token& stop, const snapshot::CategoryRules* rules = nullptr);

}  // namespace oomscope::cli
