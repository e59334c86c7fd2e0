#pragma once
// What `oomscope-cli whatif` produces, as a function of its arguments: the text it prints and the document
// it writes with --json (docs/allocator-model.md), and the checks of its --capacity and --set values. The
// command prints them; the MCP `whatif` tool (app/cli/mcp_whatif_tool.cpp) returns them, so the tool's
// structured result is the command's --json output and its refusals are the command's words.

#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "app/cli/other_formats.h"
#include "core/allocator/whatif.h"
#include "core/util/progress.h"

namespace oomscope::cli {

// --capacity: integer bytes or a byte size with a unit, at least one byte. Throws CLI::ValidationError
// ("--capacity: ...").
std::uint64_t parse_whatif_capacity(const std::string& text);
// --set: each "key:value" as PYTORCH_CUDA_ALLOC_CONF spells it. Throws CLI::ValidationError ("--set: ...").
void check_whatif_settings(const std::vector<std::string>& settings);

// `whatif PATH [options]`: reads the snapshot and replays it. Throws oomscope::Error naming the file (not
// a snapshot, no trace, a setting the file's device cannot take), Cancelled when `stop` is requested. The
// text has names from the file made safe for a terminal.
Rendered whatif_document(const std::string& path, const allocator::WhatIfOptions& options,
                         ProgressSink& progress, const std::stop_token& stop);

}  // namespace oomscope::cli
