#pragma once
// Where the server's messages go: one JSON object a line on a file descriptor, whole lines only, from any
// thread (the reader answers pings while workers answer calls and report progress). Text from files is
// bytes: invalid UTF-8 is written as U+FFFD, as the CLI's JSON does, never a failed write.

#include <mutex>

#include "core/mcp/json_rpc.h"

namespace oomscope::mcp {

class OutputChannel {
 public:
  explicit OutputChannel(int fd) : fd_(fd) {}
  OutputChannel(const OutputChannel&) = delete;
  OutputChannel& operator=(const OutputChannel&) = delete;

  // False once the peer has gone (a failed write); later sends do nothing.
  bool send(const Json& message);
  bool open() const;

 private:
  int fd_;
  mutable std::mutex mutex_;
  bool failed_ = false;
};

}  // namespace oomscope::mcp
