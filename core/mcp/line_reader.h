#pragma once
// Reads newline-delimited messages from a file descriptor (MCP's stdio transport) with a bound on the
// length of one line: a longer line is skipped to its end without being held in memory, and reported, so a
// peer that never sends a newline cannot make the server grow without limit.

#include <cstddef>
#include <string>

namespace oomscope::mcp {

class LineReader {
 public:
  enum class Status { Line, TooLong, End };

  LineReader(int fd, std::size_t max_line) : fd_(fd), max_line_(max_line) {}

  // The next line without its "\n" (a trailing "\r" is dropped too). TooLong: a line over max_line bytes
  // was skipped; End: end of input or a read error (a last line without a newline is still returned).
  Status next(std::string& line);

  std::size_t max_line() const { return max_line_; }

 private:
  bool fill();  // reads more into buf_; false at the end

  int fd_;
  std::size_t max_line_;
  std::string buf_;
  std::size_t at_ = 0;
  bool ended_ = false;
};

}  // namespace oomscope::mcp
