#pragma once
// gzip decompression, written once for every reader of compressed input: captures (.xplane.pb.gz, with
// progress, cancellation and a check of the content: core/capture/gzip_input.cpp) and the PyTorch and JAX
// files that come compressed (.json.gz, .raw.gz, .prof: core/snapshot). ISA-L's igzip inflates (3-3.6x
// zlib); when it stops on damaged or cut data, zlib decides what is wrong and where, so the errors are
// zlib's (core/util/detail/inflate_pass.h). Both stream: output comes in chunks of at most 1 MiB.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace oomscope {

// True for the gzip magic bytes (1F 8B).
bool is_gzip(std::string_view bytes);

// How inflate_gzip() stopped.
struct GzipEnd {
  enum Kind {
    Complete,       // every member decompressed
    Limit,          // `limit` bytes are out and the data goes on
    Truncated,      // the compressed data ends inside a member
    Damaged,        // zlib refused the data at compressed byte `at`
    NoDecompressor  // zlib could not start (out of memory)
  };
  Kind kind = Complete;
  std::uint64_t at = 0;      // compressed bytes consumed when it stopped
  std::string zlib_message;  // for Damaged: zlib's words, or "zlib error N"
};

// Decompresses the gzip members of `compressed` one after another, appending to `out`, never past `limit`
// bytes. Bytes after a member that do not start another member are ignored, as gzip does. `after_chunk` is
// called after each chunk (at most 1 MiB) of output with the compressed bytes consumed so far; it may throw
// to stop (cancellation, content that is not what the caller reads). Never throws itself.
GzipEnd inflate_gzip(std::string_view compressed, std::string& out, std::uint64_t limit,
                     const std::function<void(std::uint64_t consumed)>& after_chunk = {});

// The whole decompressed content. Throws oomscope::Error naming `name` when the data is damaged or cut, or
// when it would exceed max_out bytes.
std::string gunzip(std::string_view compressed, const std::string& name, std::uint64_t max_out = 16ull << 30);
// gunzip()'s errors for a decompression that stopped with `end` after `produced` bytes (a GzipStream's
// reader uses them too): returns only when `end` is Complete and produced <= max_out.
void check_gunzip_end(const GzipEnd& end, std::uint64_t produced, const std::string& name,
                      std::uint64_t max_out = 16ull << 30);
// At most `limit` decompressed bytes from the start, for recognising the content; never throws.
std::string gunzip_prefix(std::string_view compressed, std::size_t limit);

}  // namespace oomscope
