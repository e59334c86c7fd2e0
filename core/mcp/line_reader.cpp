// Bounded line reading (line_reader.h).

#include "core/mcp/line_reader.h"

#include <unistd.h>

#include <cerrno>

namespace oomscope::mcp {

bool LineReader::fill() {
  if (ended_) return false;
  if (at_ > 0) {
    buf_.erase(0, at_);
    at_ = 0;
  }
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n > 0) {
      buf_.append(chunk, static_cast<std::size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    ended_ = true;
    return false;
  }
}

LineReader::Status LineReader::next(std::string& line) {
  bool skipping = false;    // inside a line that is already too long
  std::size_t scanned = 0;  // bytes of the current line already searched for the newline
  for (;;) {
    const std::size_t nl = buf_.find('\n', at_ + scanned);
    if (nl != std::string::npos) {
      if (skipping) {
        at_ = nl + 1;
        return Status::TooLong;
      }
      std::size_t end = nl;
      if (end > at_ && buf_[end - 1] == '\r') --end;
      if (end - at_ > max_line_) {
        at_ = nl + 1;
        return Status::TooLong;
      }
      line.assign(buf_, at_, end - at_);
      at_ = nl + 1;
      return Status::Line;
    }
    scanned = buf_.size() - at_;
    if (scanned > max_line_) {  // drop what is held of the long line and keep reading to its end
      skipping = true;
      buf_.clear();
      at_ = 0;
      scanned = 0;
    }
    if (!fill()) {
      if (skipping) return Status::TooLong;
      if (buf_.size() > at_) {
        line.assign(buf_, at_, std::string::npos);
        at_ = buf_.size();
        return Status::Line;
      }
      return Status::End;
    }
  }
}

}  // namespace oomscope::mcp
