#pragma once
// What a log's messages say, in the capture report's style: figures tagged read (copied from the log) or
// derived (computed from read figures), diagnosis lines that fit the figures (each with its fix and
// saving), and what to run next to learn more. Rules: docs/logs.md.

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/diagnosis/diagnosis_types.h"
#include "core/log/log.h"

namespace oomscope::log {

// A figure computed from a message's read figures ("other processes hold capacity - free - this process").
struct DerivedFigure {
  std::string key;  // "other_processes", "reserved_unallocated_share", "shortfall", ...
  std::int64_t bytes = 0;
  std::string how;  // "capacity - free - this process (read)"
};

// The device as one bar, for the GUI: each part in bytes, 0 when the log does not give it.
struct DeviceBar {
  std::int64_t capacity = 0;  // read; 0 = not stated
  // What `capacity` is: the device's capacity, or a limit below it that the message states instead.
  std::string capacity_name = "capacity";
  std::int64_t framework_allocated = 0;  // allocated by the framework (read)
  std::int64_t reserved_unused = 0;      // reserved by the framework but unallocated (read or derived)
  std::int64_t process_other = 0;        // this process outside the framework (derived)
  // Used outside the framework when the log does not split this process from other processes (derived).
  std::int64_t outside_framework = 0;
  std::int64_t other_processes = 0;  // derived
  std::int64_t free = 0;             // read
  std::int64_t request = 0;          // read
};

struct MessageDiagnosis {
  std::size_t message = 0;  // index into LogFile::messages
  std::vector<DerivedFigure> derived;
  DeviceBar bar;
  std::vector<analysis::DiagnosisLine> lines;
};

struct LogDiagnosis {
  std::vector<MessageDiagnosis> messages;  // one per message, same order
  std::vector<std::string> next_steps;     // what to run next (snapshot / capture) and how to open it
};

LogDiagnosis diagnose_log(const LogFile& log);

}  // namespace oomscope::log
