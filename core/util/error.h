#pragma once
// Errors that reach the user. Every error names the file (when there is one) and the problem in one sentence.

#include <stdexcept>
#include <string>

namespace oomscope {

enum class ErrorKind {
  NotFound,         // the file does not exist
  Io,               // cannot open/read/map
  Empty,            // zero bytes
  TooLarge,         // over the 2 GiB protobuf limit
  Gzip,             // a gzip file (e.g. .trace.json.gz)
  Riegeli,          // a riegeli chunked capture (.xplane.riegeli)
  NotACapture,      // parses as something else, or has no planes
  Truncated,        // protobuf ends in the middle of a field
  Damaged,          // protobuf structure is invalid
  InvalidArgument,  // bad option or value given by the user
  Cancelled,        // the job was cancelled through its stop_token
};

const char* to_string(ErrorKind kind) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string file, const std::string& message)
      : std::runtime_error(file.empty() ? message : file + ": " + message),
        kind_(kind),
        file_(std::move(file)),
        message_(message) {}

  ErrorKind kind() const noexcept { return kind_; }
  const std::string& file() const noexcept { return file_; }
  // The problem without the file name.
  const std::string& message() const noexcept { return message_; }

 private:
  ErrorKind kind_;
  std::string file_;
  std::string message_;
};

// Thrown when a std::stop_token asked a job to stop. Not an error for the user to see.
class Cancelled : public Error {
 public:
  explicit Cancelled(std::string file = {}) : Error(ErrorKind::Cancelled, std::move(file), "cancelled") {}
};

}  // namespace oomscope
