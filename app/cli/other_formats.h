#pragma once
// `info` and `report` for every format that is not an XSpace capture: PyTorch allocator snapshots,
// Kineto Chrome traces, torch.profiler raw memory timelines and pprof (JAX device memory) profiles. The
// format is recognised by content (core/snapshot/file_kind.h). cmd_info / cmd_report call these first and
// go on with their own XSpace path when they return nullopt.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace oomscope::cli {

// nullopt: the file is an XSpace capture (or unreadable: the capture reader words that error).
std::optional<int> info_other_format(const std::string& path, bool json);

// nullopt: every file is an XSpace capture. Throws UsageError when XSpace captures and other formats
// are mixed in one run.
std::optional<int> report_other_formats(const std::vector<std::string>& files,
                                        const std::optional<std::string>& json_path, std::size_t top);

}  // namespace oomscope::cli
