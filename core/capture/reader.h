#pragma once
// Reading capture files. read_capture() maps the file (up to 2 GiB), checks that it starts like an XSpace,
// scans the XSpace wire format in place (never a full message parse of the whole file), parses the small
// HloProtos of /host:metadata as full messages, and returns the immutable model. A gzip file (.xplane.pb.gz)
// is decompressed into memory first (its content checked to be an XSpace before the rest is inflated). It
// reports progress, honours the stop_token (throws oomscope::Cancelled) and throws oomscope::Error naming
// the file for every problem: missing, empty, a gzip file of something else, riegeli, not an XSpace, damaged
// after a valid start (with the offset), truncated, shrank while read, or so implausible that loading it
// would take more memory than the bound (8 x its size + 64 MiB, reader_limits.cpp).

#include <memory>
#include <stop_token>
#include <string>

#include "core/capture/capture.h"
#include "core/util/progress.h"

namespace oomscope::capture {

std::shared_ptr<const Capture> read_capture(const std::string& path, ProgressSink& progress,
                                            std::stop_token stop = {});

inline std::shared_ptr<const Capture> read_capture(const std::string& path) {
  NullProgress none;
  return read_capture(path, none);
}

// The same from bytes in memory (the fuzzer, tests, a capture received over a pipe). `name` stands in for
// the file name in errors. The bytes are kept by the Capture.
std::shared_ptr<const Capture> read_capture_from_memory(std::string bytes, const std::string& name,
                                                        ProgressSink& progress, std::stop_token stop = {});

// Reads a bare serialized xla.HloProto sidecar (<module>(<id>).hlo_proto.pb) as a one-module capture-less
// plan. Throws oomscope::Error like read_capture.
Module read_hlo_proto_file(const std::string& path);

// Plan totals of one HloProto (memory space 0). Shared by the reader and the sidecar path.
PlanTotals compute_plan_totals(const xla::HloProto& hlo);

}  // namespace oomscope::capture
