#pragma once
// One raw log line made readable for the message parsers: CR, NUL bytes and ANSI colour codes (whole or as
// the "[2m[36m" leftovers that remain when a viewer dropped the ESC bytes) removed, and the prefixes that
// loggers and launchers put in front taken off, the rank or process they name kept as the line's source.
// Prefixes: torchrun "[rank3]:" / "[default3]:", Ray "(MeshHostWorker pid=489)" / "(pid=489)", absl/glog
// "I0309 12:51:51.372677 1234 file.cc:12] ", TensorFlow "2019-03-11 09:52:43.509896: I path.cc:641] ",
// "W path.cc:217] ", ISO timestamps (Docker, CI: "2025-11-14T08:52:38.3746210Z "), vLLM "INFO 04-27
// 10:11:03 file.py:70] ", Python logging "ERROR:tensorflow:", pipe-separated "2024-04-27 10:13:05 | ERROR |
// stderr | ", NCCL "host:pid:tid [dev] ", line numbers copied in front of a Ray prefix, and "# " comments.

#include <string>
#include <string_view>

namespace oomscope::log::detail {

struct CleanLine {
  std::string text;    // the line without its prefixes and colour codes (leading indentation kept)
  std::string source;  // "rank 3", "MeshHostWorker pid 489", "ng30903 pid 3063028", "" (none)
};

// `raw` is one line without its '\n'.
void clean_line(std::string_view raw, CleanLine& out);

}  // namespace oomscope::log::detail
