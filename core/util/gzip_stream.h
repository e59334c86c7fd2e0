#pragma once
// gzip decompression a chunk at a time, for readers that parse as the data comes and so never hold the whole
// decompressed content (the Kineto trace reader). ISA-L inflates; if it stops on damaged or cut data, zlib
// takes over from the start of the data, its output skipped up to what was already handed out, so the verdict
// (kind, offset, words, decompressed size) is exactly zlib's (core/util/gzip.h). On cut data the chunks are
// zlib's too; on damaged data the last chunks before the end may not be (ISA-L can decode a few bytes of
// garbage that zlib refuses at once): a reader must let a gzip error win over what it made of the chunks.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/util/gzip.h"

namespace oomscope {

namespace detail {
class InflatePass;
}

class GzipStream {
 public:
  // `compressed` must outlive the stream; at most `limit` bytes come out.
  GzipStream(std::string_view compressed, std::uint64_t limit);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // The next chunk of output (at most 1 MiB, valid until the next call); empty once the data has ended,
  // and then end() says how (Complete, Limit, Truncated, Damaged, NoDecompressor).
  std::string_view next();
  const GzipEnd& end() const { return end_; }
  // Decompressed bytes: handed out so far; once ended on zlib's verdict, zlib's count.
  std::uint64_t produced() const;
  std::uint64_t consumed() const;  // compressed bytes used so far

 private:
  std::string_view in_;
  std::uint64_t limit_;
  std::unique_ptr<detail::InflatePass> pass_;
  bool on_zlib_ = false, ended_ = false;
  std::uint64_t delivered_ = 0;
  std::string buf_;
  GzipEnd end_;
};

}  // namespace oomscope
