#pragma once
// Opens a recording (recorder.h) and replays it into a LiveSink, so it lands in the same Store and views
// as a live session. A file cut short by a crash replays up to its last complete record; that is reported
// in ReplayInfo, not as an error.

#include <cstdint>
#include <stop_token>
#include <string>

#include "core/live/protocol/sink.h"

namespace oomscope::live {

struct ReplayInfo {
  std::uint64_t records = 0;
  std::uint64_t samples = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t data_bytes = 0;  // after decompression
  bool truncated = false;        // the file ends inside a gzip block or a record (the writer stopped)
  std::string note;              // says where and why when truncated
};

// Throws oomscope::Error naming the file: missing, unreadable, not a recording, damaged records.
ReplayInfo replay_recording(const std::string& path, LiveSink& sink, std::stop_token stop = {});

// True when the file starts like a recording (gzip holding the magic line); cheap, for "open" dispatch.
bool looks_like_recording(const std::string& path);

}  // namespace oomscope::live
