// Reading a .xplane.pb.gz: zlib inflate (core/util/gzip.h) into memory the reader then scans like any
// capture. The first decompressed bytes are checked to be an XSpace before the rest is decompressed, so a
// .trace.json.gz or another gzip file is refused at once.

#include "core/capture/input_checks.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/gzip.h"

namespace oomscope::capture {

namespace {

std::string exact(std::uint64_t n) { return format_bytes_exact(static_cast<std::int64_t>(n)); }

}  // namespace

std::string gunzip_capture(std::string_view compressed, const std::string& path, std::uint64_t max_bytes,
                           ProgressSink& progress, std::stop_token stop) {
  constexpr std::size_t kCheckAt = 64u << 10;
  std::string out;
  bool checked = false;
  const auto check_content = [&] {
    checked = true;
    if (auto why = xspace_start_problem(out))
      throw Error(ErrorKind::Gzip, path,
                  "a gzip file that is not a compressed XSpace capture (" + *why +
                      "); a .trace.json.gz is a trace-viewer export: open the .xplane.pb beside it");
  };
  if (stop.stop_requested()) throw Cancelled(path);
  const GzipEnd end = inflate_gzip(compressed, out, max_bytes, [&](std::uint64_t at) {
    if (!checked && out.size() >= kCheckAt) check_content();
    progress.report(
        compressed.empty() ? 0.0 : 0.5 * static_cast<double>(at) / static_cast<double>(compressed.size()),
        "decompressing");
    if (stop.stop_requested()) throw Cancelled(path);
  });
  switch (end.kind) {
    case GzipEnd::Complete:
      break;
    case GzipEnd::NoDecompressor:
      throw Error(ErrorKind::Io, path, "cannot start the gzip decompressor (out of memory?)");
    case GzipEnd::Limit:
      throw Error(ErrorKind::TooLarge, path,
                  "it decompresses to more than " + format_bytes(max_bytes) +
                      ", more than a protobuf capture can hold");
    case GzipEnd::Truncated:
      throw Error(ErrorKind::Truncated, path,
                  "the gzip data is cut short: it ends after " + exact(compressed.size()) +
                      " compressed bytes, in the middle of the compressed stream (" + exact(out.size()) +
                      " bytes decompressed); the file was probably cut while being written or copied")
          .at(compressed.size());
    case GzipEnd::Damaged:
      throw Error(
          ErrorKind::Damaged, path,
          "the gzip data is damaged near compressed byte " + exact(end.at) + " (" + end.zlib_message + ")")
          .at(end.at);
  }
  if (!checked) check_content();
  out.shrink_to_fit();
  return out;
}

}  // namespace oomscope::capture
