// Line-at-a-time message output (output_channel.h).

#include "core/mcp/output_channel.h"

#include <unistd.h>

#include <cerrno>

namespace oomscope::mcp {

bool OutputChannel::send(const Json& message) {
  std::string line = message.dump(-1, ' ', false, Json::error_handler_t::replace);
  line += '\n';
  std::lock_guard lock(mutex_);
  if (failed_) return false;
  for (std::size_t at = 0; at < line.size();) {
    const ssize_t n = ::write(fd_, line.data() + at, line.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failed_ = true;
      return false;
    }
    at += static_cast<std::size_t>(n);
  }
  return true;
}

bool OutputChannel::open() const {
  std::lock_guard lock(mutex_);
  return !failed_;
}

}  // namespace oomscope::mcp
