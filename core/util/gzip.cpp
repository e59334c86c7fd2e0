#include "core/util/gzip.h"

#include <algorithm>

#include "core/util/bytes.h"
#include "core/util/detail/inflate_pass.h"
#include "core/util/error.h"

namespace oomscope {

namespace {

std::string exact(std::uint64_t n) { return format_bytes_exact(static_cast<std::int64_t>(n)); }

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

GzipEnd inflate_into(std::string_view compressed, std::string& out, std::uint64_t limit,
                     const std::function<void(std::uint64_t consumed)>& after_chunk,
                     detail::InflatePass::Engine engine) {
  detail::InflatePass pass(compressed, limit, engine);
  std::string spill;  // output past what was reserved: appended, so the string grows by doubling
  while (!pass.done()) {
    const std::size_t room = pass.room();
    if (room == 0) {
      pass.next(nullptr, 1);  // at the limit: says whether the data goes on
      break;
    }
    const std::size_t before = out.size();
    if (out.capacity() > before) {
      // Straight into the reserved space, never past it: growing a string of the whole text by copying it
      // cost more than the decompression (the trailer's size is usually exact).
      const std::size_t here = std::min(room, out.capacity() - before);
      out.resize(before + here);
      const std::size_t wrote = pass.next(out.data() + before, here);
      out.resize(before + wrote);
    } else {
      spill.resize(std::min<std::size_t>(room, 64u << 10));
      out.append(spill.data(), pass.next(spill.data(), spill.size()));
    }
    if (after_chunk) after_chunk(pass.consumed());
  }
  return pass.end();
}

}  // namespace

GzipEnd inflate_gzip(std::string_view compressed, std::string& out, std::uint64_t limit,
                     const std::function<void(std::uint64_t consumed)>& after_chunk) {
  const std::size_t start = out.size();
  const std::uint64_t room = limit > start ? limit - start : 0;
  detail::reserve_for_gzip(compressed, out, room);
  GzipEnd end = inflate_into(compressed, out, room, after_chunk, detail::InflatePass::Engine::Isal);
  if (end.kind == GzipEnd::Complete || end.kind == GzipEnd::Limit) return end;
  // Damaged or cut data (rare): zlib decides, so that the kind, the offset and the words are what they
  // always were. Its output replaces ISA-L's; after_chunk sees the offsets again from the start.
  out.resize(start);
  return inflate_into(compressed, out, room, after_chunk, detail::InflatePass::Engine::Zlib);
}

std::string gunzip(std::string_view compressed, const std::string& name, std::uint64_t max_out) {
  std::string out;
  const GzipEnd end = inflate_gzip(compressed, out, max_out + 1);
  check_gunzip_end(end, out.size(), name, max_out);
  return out;
}

void check_gunzip_end(const GzipEnd& end, std::uint64_t produced, const std::string& name,
                      std::uint64_t max_out) {
  if (produced > max_out)
    throw Error(ErrorKind::TooLarge, name,
                "decompresses to more than " + format_bytes(max_out) + "; refusing to go on");
  if (end.kind == GzipEnd::Damaged || end.kind == GzipEnd::NoDecompressor)
    throw Error(ErrorKind::Damaged, name,
                "the gzip stream is damaged after " + exact(produced) + " decompressed bytes");
  if (end.kind != GzipEnd::Complete)
    throw Error(ErrorKind::Truncated, name,
                "the gzip stream is truncated: it ends after " + exact(produced) +
                    " decompressed bytes; the file was probably cut short");
}

std::string gunzip_prefix(std::string_view compressed, std::size_t limit) {
  std::string out;
  inflate_gzip(compressed, out, limit);
  return out;
}

}  // namespace oomscope
