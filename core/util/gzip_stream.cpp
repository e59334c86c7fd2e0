#include "core/util/gzip_stream.h"

#include <algorithm>

#include "core/util/detail/inflate_pass.h"

namespace oomscope {

using detail::InflatePass;

GzipStream::GzipStream(std::string_view compressed, std::uint64_t limit)
    : in_(compressed),
      limit_(limit),
      pass_(std::make_unique<InflatePass>(compressed, limit, InflatePass::Engine::Isal)),
      buf_(detail::kInflateChunk, '\0') {}

GzipStream::~GzipStream() = default;

std::uint64_t GzipStream::consumed() const { return pass_->consumed(); }

std::uint64_t GzipStream::produced() const { return ended_ && on_zlib_ ? pass_->produced() : delivered_; }

std::string_view GzipStream::next() {
  while (!ended_) {
    if (pass_->done()) {
      const GzipEnd::Kind k = pass_->end().kind;
      if (!on_zlib_ && k != GzipEnd::Complete && k != GzipEnd::Limit) {
        // ISA-L stopped on damaged or cut data: zlib from the start, skipping what was handed out.
        pass_ = std::make_unique<InflatePass>(in_, limit_, InflatePass::Engine::Zlib);
        on_zlib_ = true;
        continue;
      }
      end_ = pass_->end();
      ended_ = true;
      break;
    }
    const std::size_t room = std::max<std::size_t>(pass_->room(), 1);
    const std::uint64_t before = pass_->produced();
    const std::size_t wrote = pass_->next(buf_.data(), room);
    // On the zlib pass, only what lies past the bytes already handed out is new.
    const std::uint64_t skip = delivered_ > before ? std::min<std::uint64_t>(delivered_ - before, wrote) : 0;
    if (wrote > skip) {
      delivered_ += wrote - skip;
      return {buf_.data() + skip, static_cast<std::size_t>(wrote - skip)};
    }
  }
  return {};
}

}  // namespace oomscope
