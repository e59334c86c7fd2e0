#pragma once
// Internal: what the reader checks before it scans (reader.cpp), and reading a gzip-compressed capture
// into memory (gzip_input.cpp).

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "core/capture/mapped_file.h"
#include "core/util/progress.h"

namespace oomscope::capture {

// Why `bytes` cannot be the start of an XSpace message (nullopt when it can). Looks at the first field only:
// an XSpace starts with a plane, an error, a warning or a hostname, all length-delimited. A first field that
// runs past the end is left to the scan, which calls the file truncated.
std::optional<std::string> xspace_start_problem(std::string_view bytes);

// Decompresses a gzip file (several members allowed) into memory, with progress and cancellation.
// Throws oomscope::Error naming `path`: damaged or cut gzip data, a result over `max_bytes`, or content that
// is not an XSpace capture (checked on the first bytes, before the rest is decompressed).
std::string gunzip_capture(std::string_view compressed, const std::string& path, std::uint64_t max_bytes,
                           ProgressSink& progress, std::stop_token stop);

}  // namespace oomscope::capture
