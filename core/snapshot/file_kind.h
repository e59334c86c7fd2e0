#pragma once
// The one place that recognises every input format by its CONTENT (not its extension): XSpace captures
// (plain or gzip'd: the capture reader opens both), PyTorch allocator snapshots (pickle), Chrome trace
// JSON (Kineto, gzip'd or not), the torch.profiler raw memory timeline, and pprof profiles (JAX device
// memory profiles), and text, which is a log candidate (core/log reads it and says whether it holds an
// out-of-memory message). For anything else `looks_like` says what the bytes resemble.

#include <string>
#include <string_view>

#include "core/util/enum_names.h"

namespace oomscope::snapshot {

enum class FileKind { XSpace, TorchSnapshot, ChromeTrace, HtaRawTimeline, Pprof, Log, Unknown };
inline constexpr EnumName<FileKind> kFileKindNames[] = {{FileKind::XSpace, "xspace"},
                                                        {FileKind::TorchSnapshot, "torch-snapshot"},
                                                        {FileKind::ChromeTrace, "chrome-trace"},
                                                        {FileKind::HtaRawTimeline, "memory-timeline-raw"},
                                                        {FileKind::Pprof, "pprof"},
                                                        {FileKind::Log, "log"},
                                                        {FileKind::Unknown, "unknown"}};
static_assert(names_every_value(kFileKindNames, FileKind::Unknown));
const char* to_string(FileKind k) noexcept;

struct FileKindInfo {
  FileKind kind = FileKind::Unknown;
  bool gzip = false;
  std::string looks_like;  // "gzip-compressed Chrome trace JSON (torch.profiler / Kineto)"
};

// Reads the first 256 KiB. An unreadable or empty file, and binary data that is no known format, are
// reported as XSpace so that the capture reader's own wording ("no such file", "empty", "damaged at byte
// N", "truncated") reaches the user; text (ASCII or UTF-8, with tabs, escape codes and a few stray control
// bytes) is Log; ZIP, HTML and other JSON are Unknown.
FileKindInfo detect_file_kind(const std::string& path);
// complete: `bytes` is the whole file.
FileKindInfo detect_kind_of_bytes(std::string_view bytes, bool complete);

// Throws oomscope::Error (NotACapture) saying what the file looks like and what oomscope reads.
[[noreturn]] void throw_unknown_kind(const std::string& path, const FileKindInfo& k);

}  // namespace oomscope::snapshot
