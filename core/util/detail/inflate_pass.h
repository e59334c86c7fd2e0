#pragma once
// One pass of gzip decompression over a whole compressed buffer, by one of two inflaters, for gzip.cpp and
// gzip_stream.cpp (and the tests that compare the two).
//
// ISA-L's igzip is the fast one: streaming like zlib (so chunks, progress, the limit and bounded memory all
// work the same) and 3-3.6x zlib's speed on the real Kineto traces (2.8-4.6 GB/s of CPU time against zlib's
// 0.93-1.33 GB/s; libdeflate 2.4-3.5 GB/s, and it cannot stream: docs/measured-figures.md). zlib is the
// reference: when an ISA-L pass stops on damaged or cut data, the callers run a zlib pass over the same
// input, so that the verdict, the offset and the words of the error are zlib's, as they always were.

#include <cstdint>
#include <memory>
#include <string_view>

#include "core/util/gzip.h"

namespace oomscope::detail {

// Output comes in chunks of at most this many bytes.
constexpr std::size_t kInflateChunk = 1u << 20;

class InflatePass {
 public:
  enum class Engine { Isal, Zlib };
  InflatePass(std::string_view compressed, std::uint64_t limit, Engine engine);
  ~InflatePass();
  InflatePass(const InflatePass&) = delete;
  InflatePass& operator=(const InflatePass&) = delete;

  // Decompresses into dst[0, room) (room > 0) and returns the bytes written, stopping at the end of the
  // output room, of a member or of the data. Once done(), end() says how the pass stopped; an ISA-L pass
  // says Damaged or Truncated without words, for a zlib pass to decide.
  std::size_t next(char* dst, std::size_t room);
  bool done() const { return done_; }
  const GzipEnd& end() const { return end_; }
  std::uint64_t produced() const { return produced_; }
  std::uint64_t consumed() const;  // compressed bytes used so far
  // The room the next chunk may have: kInflateChunk, less near the limit.
  std::size_t room() const;

 private:
  struct State;
  void finish(GzipEnd::Kind kind, std::uint64_t at, std::string message = {});
  bool next_member(std::uint64_t at);

  std::string_view in_;
  std::uint64_t limit_;
  Engine engine_;
  std::unique_ptr<State> st_;
  std::uint64_t fed_ = 0;  // compressed bytes handed to the inflater; consumed = fed_ - what it has left
  std::uint64_t produced_ = 0;
  bool done_ = false;
  GzipEnd end_;
};

// Reserves what the gzip trailer says the data decompresses to (modulo 4 GiB), within `limit` and what
// deflate can expand to (1032 to 1).
void reserve_for_gzip(std::string_view compressed, std::string& out, std::uint64_t limit);

}  // namespace oomscope::detail
