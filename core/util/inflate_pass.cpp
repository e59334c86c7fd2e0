// One pass of gzip decompression by ISA-L or zlib (core/util/detail/inflate_pass.h).

#include "core/util/detail/inflate_pass.h"

#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

namespace oomscope::detail {

struct InflatePass::State {
  inflate_state isal{};  // about 40 KiB of tables and window: on the heap with the rest
  z_stream z{};
  bool z_open = false;
  ~State() {
    if (z_open) inflateEnd(&z);
  }
};

void reserve_for_gzip(std::string_view compressed, std::string& out, std::uint64_t limit) {
  if (compressed.size() < 18) return;
  std::uint32_t isize = 0;
  std::memcpy(&isize, compressed.data() + compressed.size() - 4, 4);
  const std::uint64_t guess = std::min<std::uint64_t>({isize, limit, compressed.size() * 1032});
  out.reserve(out.size() + static_cast<std::size_t>(guess));
}

InflatePass::InflatePass(std::string_view compressed, std::uint64_t limit, Engine engine)
    : in_(compressed), limit_(limit), engine_(engine), st_(std::make_unique<State>()) {
  if (engine_ == Engine::Zlib) {
    st_->z_open = inflateInit2(&st_->z, 16 + MAX_WBITS) == Z_OK;  // gzip wrapper only
    if (!st_->z_open) finish(GzipEnd::NoDecompressor, 0);
  } else if (!next_member(0)) {
    finish(GzipEnd::Damaged, 0);
  }
}

InflatePass::~InflatePass() = default;

void InflatePass::finish(GzipEnd::Kind kind, std::uint64_t at, std::string message) {
  done_ = true;
  end_ = GzipEnd{kind, at, std::move(message)};
}

// ISA-L ignores the reserved bits of a member's flags byte where zlib refuses them ("unknown header flags
// set"): such a member is left to zlib.
bool InflatePass::next_member(std::uint64_t at) {
  if (in_.size() - at > 3 && (static_cast<unsigned char>(in_[at + 3]) & 0xe0) != 0) return false;
  isal_inflate_init(&st_->isal);
  st_->isal.crc_flag = ISAL_GZIP;  // parse the gzip header, check the trailer's CRC-32 and length
  fed_ = at;
  return true;
}

std::uint64_t InflatePass::consumed() const {
  return fed_ - (engine_ == Engine::Isal ? st_->isal.avail_in : st_->z.avail_in);
}

std::size_t InflatePass::room() const {
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(kInflateChunk, limit_ - std::min(limit_, produced_)));
}

std::size_t InflatePass::next(char* dst, std::size_t room) {
  const auto* in = reinterpret_cast<const unsigned char*>(in_.data());
  while (!done_) {
    if (produced_ >= limit_) {
      finish(GzipEnd::Limit, consumed());
      return 0;
    }
    room = static_cast<std::size_t>(std::min<std::uint64_t>(room, limit_ - produced_));
    std::size_t wrote = 0;
    const std::uint64_t before = consumed();
    bool member_end = false;
    if (engine_ == Engine::Isal) {
      inflate_state& s = st_->isal;
      if (s.avail_in == 0) {
        const auto take = static_cast<std::uint32_t>(std::min<std::uint64_t>(in_.size() - fed_, 1u << 30));
        s.next_in = const_cast<unsigned char*>(in + fed_);
        s.avail_in = take;
        fed_ += take;
      }
      s.next_out = reinterpret_cast<unsigned char*>(dst);
      s.avail_out = static_cast<std::uint32_t>(room);
      const int rc = isal_inflate(&s);
      wrote = room - s.avail_out;
      produced_ += wrote;
      if (rc != ISAL_DECOMP_OK) {
        finish(GzipEnd::Damaged, consumed());
      } else if (s.block_state == ISAL_BLOCK_FINISH) {
        member_end = true;
      } else if (s.avail_in == 0 && fed_ >= in_.size() && s.avail_out != 0) {
        finish(GzipEnd::Truncated, in_.size());  // input used up inside a member
      } else if (wrote == 0 && consumed() == before) {
        finish(GzipEnd::Damaged, consumed());  // no progress: would repeat forever
      }
    } else {
      z_stream& z = st_->z;
      if (z.avail_in == 0) {
        const auto take = static_cast<uInt>(std::min<std::uint64_t>(in_.size() - fed_, UINT_MAX / 2));
        z.next_in = const_cast<Bytef*>(in + fed_);
        z.avail_in = take;
        fed_ += take;
      }
      z.next_out = reinterpret_cast<Bytef*>(dst);
      z.avail_out = static_cast<uInt>(room);
      const int rc = inflate(&z, Z_NO_FLUSH);
      wrote = room - z.avail_out;
      produced_ += wrote;
      if (rc == Z_STREAM_END)
        member_end = true;
      else if (rc == Z_BUF_ERROR && z.avail_in == 0 && fed_ >= in_.size())
        finish(GzipEnd::Truncated, in_.size());
      else if (rc != Z_OK && rc != Z_BUF_ERROR)
        finish(GzipEnd::Damaged, consumed(), z.msg ? std::string(z.msg) : "zlib error " + std::to_string(rc));
    }
    if (member_end) {
      const std::uint64_t at = consumed();
      // Another gzip member follows (concatenated .gz files decompress to the concatenation); bytes after
      // a member that do not start one are ignored, as gzip does.
      if (at >= in_.size() || in_.size() - at < 2 || !is_gzip(in_.substr(at)))
        finish(GzipEnd::Complete, at);
      else if (engine_ == Engine::Zlib)
        inflateReset(&st_->z);
      else if (!next_member(at))
        finish(GzipEnd::Damaged, at);
    }
    if (wrote > 0) return wrote;
  }
  return 0;
}

}  // namespace oomscope::detail
