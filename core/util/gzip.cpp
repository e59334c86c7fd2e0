#include "core/util/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope {

namespace {

struct Inflater {
  z_stream z{};
  bool open = false;
  Inflater() {
    open = inflateInit2(&z, 16 + MAX_WBITS) == Z_OK;  // gzip wrapper only
  }
  ~Inflater() {
    if (open) inflateEnd(&z);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
};

std::string exact(std::uint64_t n) { return format_bytes_exact(static_cast<std::int64_t>(n)); }

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

GzipEnd inflate_gzip(std::string_view compressed, std::string& out, std::uint64_t limit,
                     const std::function<void(std::uint64_t consumed)>& after_chunk) {
  Inflater inf;
  if (!inf.open) return {GzipEnd::NoDecompressor, 0, {}};
  // The gzip trailer holds the size modulo 4 GiB: a good first guess for what is read here (under 2 GiB),
  // within what deflate can expand to (1032 to 1).
  if (compressed.size() >= 18) {
    std::uint32_t isize = 0;
    std::memcpy(&isize, compressed.data() + compressed.size() - 4, 4);
    const std::uint64_t guess = std::min<std::uint64_t>({isize, limit, compressed.size() * 1032});
    out.reserve(out.size() + static_cast<std::size_t>(guess));
  }
  constexpr std::size_t kChunk = 1u << 20;
  const auto* in = reinterpret_cast<const Bytef*>(compressed.data());
  std::uint64_t consumed = 0;
  while (true) {
    if (inf.z.avail_in == 0) {
      const std::uint64_t left = compressed.size() - consumed;
      const auto take = static_cast<uInt>(std::min<std::uint64_t>(left, UINT_MAX / 2));
      inf.z.next_in = const_cast<Bytef*>(in + consumed);
      inf.z.avail_in = take;
      consumed += take;
    }
    if (out.size() >= limit) return {GzipEnd::Limit, consumed - inf.z.avail_in, {}};
    const std::size_t before = out.size();
    const std::size_t room = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, limit - before));
    if (out.capacity() < before + room) out.reserve(std::max(out.capacity() * 2, before + room));
    out.resize(before + room);
    inf.z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    inf.z.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&inf.z, Z_NO_FLUSH);
    out.resize(before + room - inf.z.avail_out);
    const std::uint64_t at = consumed - inf.z.avail_in;
    if (after_chunk) after_chunk(at);
    if (rc == Z_STREAM_END) {
      if (at >= compressed.size()) return {GzipEnd::Complete, at, {}};
      // Another gzip member follows (concatenated .gz files decompress to the concatenation).
      if (compressed.size() - at < 2 || !is_gzip(compressed.substr(at)))
        return {GzipEnd::Complete, at, {}};  // trailing garbage: ignored as gzip does
      inflateReset(&inf.z);
      continue;
    }
    if (rc == Z_BUF_ERROR && inf.z.avail_in == 0 && consumed >= compressed.size())
      return {GzipEnd::Truncated, compressed.size(), {}};
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      return {GzipEnd::Damaged, at, inf.z.msg ? std::string(inf.z.msg) : "zlib error " + std::to_string(rc)};
  }
}

std::string gunzip(std::string_view compressed, const std::string& name, std::uint64_t max_out) {
  std::string out;
  const GzipEnd end = inflate_gzip(compressed, out, max_out + 1);
  if (out.size() > max_out)
    throw Error(ErrorKind::TooLarge, name,
                "decompresses to more than " + format_bytes(max_out) + "; refusing to go on");
  if (end.kind == GzipEnd::Damaged || end.kind == GzipEnd::NoDecompressor)
    throw Error(ErrorKind::Damaged, name,
                "the gzip stream is damaged after " + exact(out.size()) + " decompressed bytes");
  if (end.kind != GzipEnd::Complete)
    throw Error(ErrorKind::Truncated, name,
                "the gzip stream is truncated: it ends after " + exact(out.size()) +
                    " decompressed bytes; the file was probably cut short");
  return out;
}

std::string gunzip_prefix(std::string_view compressed, std::size_t limit) {
  std::string out;
  inflate_gzip(compressed, out, limit);
  return out;
}

}  // namespace oomscope
