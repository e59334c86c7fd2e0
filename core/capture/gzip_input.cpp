// Reading a .xplane.pb.gz: zlib inflate into memory the reader then scans like any capture. The first
// decompressed bytes are checked to be an XSpace before the rest is decompressed, so a .trace.json.gz or
// another gzip file is refused at once.

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/capture/input_checks.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::capture {

namespace {

std::string exact(std::uint64_t n) { return format_bytes_exact(static_cast<std::int64_t>(n)); }

struct Inflater {
  z_stream z{};
  bool open = false;
  Inflater() {
    open = inflateInit2(&z, 16 + MAX_WBITS) == Z_OK;  // gzip wrapper only
  }
  ~Inflater() {
    if (open) inflateEnd(&z);
  }
};

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip_capture(std::string_view compressed, const std::string& path, std::uint64_t max_bytes,
                           ProgressSink& progress, std::stop_token stop) {
  Inflater inf;
  if (!inf.open) throw Error(ErrorKind::Io, path, "cannot start the gzip decompressor (out of memory?)");
  std::string out;
  // The gzip trailer holds the size modulo 4 GiB: a good first guess for captures, which are under 2 GiB.
  if (compressed.size() >= 18) {
    std::uint32_t isize = 0;
    std::memcpy(&isize, compressed.data() + compressed.size() - 4, 4);
    out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(isize, max_bytes)));
  }
  constexpr std::size_t kChunk = 1u << 20, kCheckAt = 64u << 10;
  const auto* in = reinterpret_cast<const Bytef*>(compressed.data());
  std::uint64_t consumed = 0;
  bool checked = false;
  const auto check_content = [&] {
    checked = true;
    if (auto why = xspace_start_problem(out))
      throw Error(ErrorKind::Gzip, path,
                  "a gzip file that is not a compressed XSpace capture (" + *why +
                      "); a .trace.json.gz is a trace-viewer export: open the .xplane.pb beside it");
  };
  int rc = Z_OK;
  while (true) {
    if (stop.stop_requested()) throw Cancelled(path);
    if (inf.z.avail_in == 0) {
      const std::uint64_t left = compressed.size() - consumed;
      const auto take = static_cast<uInt>(std::min<std::uint64_t>(left, UINT_MAX / 2));
      inf.z.next_in = const_cast<Bytef*>(in + consumed);
      inf.z.avail_in = take;
      consumed += take;
    }
    if (out.size() >= max_bytes)
      throw Error(ErrorKind::TooLarge, path,
                  "it decompresses to more than " + format_bytes(max_bytes) +
                      ", more than a protobuf capture can hold");
    const std::size_t before = out.size();
    const std::size_t room = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, max_bytes - before));
    if (out.capacity() < before + room) out.reserve(std::max(out.capacity() * 2, before + room));
    out.resize(before + room);
    inf.z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    inf.z.avail_out = static_cast<uInt>(room);
    rc = inflate(&inf.z, Z_NO_FLUSH);
    out.resize(before + room - inf.z.avail_out);
    if (!checked && out.size() >= kCheckAt) check_content();
    const std::uint64_t at = consumed - inf.z.avail_in;
    progress.report(
        compressed.empty() ? 0.0 : 0.5 * static_cast<double>(at) / static_cast<double>(compressed.size()),
        "decompressing");
    if (rc == Z_STREAM_END) {
      if (at >= compressed.size()) break;
      // Another gzip member follows (concatenated .gz files decompress to the concatenation).
      if (compressed.size() - at < 2 || !is_gzip(compressed.substr(at)))
        break;  // trailing garbage: ignored as gzip does
      inflateReset(&inf.z);
      continue;
    }
    if (rc == Z_BUF_ERROR && inf.z.avail_in == 0 && consumed >= compressed.size())
      throw Error(ErrorKind::Truncated, path,
                  "the gzip data is cut short: it ends after " + exact(compressed.size()) +
                      " compressed bytes, in the middle of the compressed stream (" + exact(out.size()) +
                      " bytes decompressed); the file was probably cut while being written or copied")
          .at(compressed.size());
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw Error(ErrorKind::Damaged, path,
                  "the gzip data is damaged near compressed byte " + exact(at) + " (" +
                      (inf.z.msg ? std::string(inf.z.msg) : std::string("zlib error ") + std::to_string(rc)) +
                      ")")
          .at(at);
  }
  if (!checked) check_content();
  out.shrink_to_fit();
  return out;
}

}  // namespace oomscope::capture
