#pragma once
// `info` and `report` for every format that is not an XSpace capture: PyTorch allocator snapshots,
// Kineto Chrome traces, torch.profiler raw memory timelines and pprof (JAX device memory) profiles. The
// format is recognised by content (core/snapshot/file_kind.h). command_documents.cpp calls these first and
// goes on with the XSpace path when they return nullopt.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/util/progress.h"

namespace oomscope::snapshot {
class CategoryRules;
}

namespace oomscope::cli {

// A command's output both ways: the text it prints (names already made safe for a terminal) and the
// document it writes with --json. The MCP tools (app/cli/mcp_*) return the same two.
struct Rendered {
  std::string text;
  nlohmann::ordered_json json;
  // Said on stderr after the output, and the command exits 1, when set: a log whose messages are none of them
  // an out-of-memory error ("only warnings that are not failures").
  std::string complaint = {};
};

// nullopt: the file is an XSpace capture (or unreadable: the capture reader words that error).
std::optional<Rendered> info_other_format(const std::string& path, ProgressSink& progress,
                                          const std::stop_token& stop);

// nullopt: every file is an XSpace capture. Throws UsageError when XSpace captures and other formats
// are mixed in one run. The JSON is one file's document, or an array of them for several files.
// With `rules` (a user's category rules, docs/categories.md), snapshots are categorised by them first; a
// UsageError when none of the files is a snapshot.
std::optional<Rendered> report_other_formats(const std::vector<std::string>& files, std::size_t top,
                                             ProgressSink& progress, const std::stop_token& stop,
                                             const snapshot::CategoryRules* rules = nullptr);

}  // namespace oomscope::cli
