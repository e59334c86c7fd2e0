#include "core/snapshot/gzip.h"

#include <zlib.h>

#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::snapshot {

namespace {

// Inflates until `limit` bytes are out or the input ends. Returns the zlib status of the last call.
int inflate_into(std::string_view in, std::string& out, std::uint64_t limit, bool& ended) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) return Z_MEM_ERROR;  // 32: gzip or zlib header
  const auto* next = reinterpret_cast<const Bytef*>(in.data());
  std::size_t left = in.size();
  int rc = Z_OK;
  ended = false;
  char buf[1 << 16];
  while (true) {
    if (z.avail_in == 0 && left > 0) {
      const auto chunk = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
      z.next_in = const_cast<Bytef*>(next);
      z.avail_in = chunk;
      next += chunk;
      left -= chunk;
    }
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() >= limit) break;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow.
      if (z.avail_in == 0 && left == 0) {
        ended = true;
        break;
      }
      if (inflateReset(&z) != Z_OK) break;
      continue;
    }
    if (rc != Z_OK) break;
    if (z.avail_in == 0 && left == 0 && z.avail_out != 0) break;
  }
  inflateEnd(&z);
  return rc;
}

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view bytes, const std::string& name, std::uint64_t max_out) {
  std::string out;
  bool ended = false;
  const int rc = inflate_into(bytes, out, max_out + 1, ended);
  if (out.size() > max_out)
    throw Error(ErrorKind::TooLarge, name,
                "decompresses to more than " + format_bytes(max_out) + "; refusing to go on");
  if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR || rc == Z_STREAM_ERROR)
    throw Error(ErrorKind::Damaged, name,
                "the gzip stream is damaged after " +
                    format_bytes_exact(static_cast<std::int64_t>(out.size())) + " decompressed bytes");
  if (!ended)
    throw Error(ErrorKind::Truncated, name,
                "the gzip stream is truncated: it ends after " +
                    format_bytes_exact(static_cast<std::int64_t>(out.size())) +
                    " decompressed bytes; the file was probably cut short");
  return out;
}

std::string gunzip_prefix(std::string_view bytes, std::size_t limit) {
  std::string out;
  bool ended = false;
  inflate_into(bytes, out, limit, ended);
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace oomscope::snapshot
