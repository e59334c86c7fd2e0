#pragma once
// Errors that reach the user. Every error names the file (when there is one) and the problem in one sentence.
//
// The kind says what went wrong in terms of what the user can do about it (docs/errors.md):
// the GUI offers an action per kind (Retry a file that changed while it was read, Open the capture beside a
// companion file, Choose another file for one in the wrong format), the CLI prints what() on one line.
// Readers add the byte offset of the damage when they know it and, for a companion file (a .trace.json.gz
// beside its .xplane.pb), the path of the file to open instead.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace oomscope {

enum class ErrorKind {
  NotFound,            // the file does not exist
  PermissionDenied,    // it exists but may not be read
  NotAFile,            // a directory, device or socket where a file was expected
  Io,                  // cannot open/read/map/write for another reason
  Empty,               // zero bytes
  TooLarge,            // over a size or memory budget (the 2 GiB protobuf limit, a parse budget)
  Gzip,                // gzip data that is not a compressed capture
  Riegeli,             // a riegeli chunked capture (.xplane.riegeli)
  NotACapture,         // parses as something else (wrong format)
  Truncated,           // ends in the middle of a field: cut short while written or copied
  Changed,             // the file shrank or was replaced while it was being read
  Damaged,             // malformed (at offset() when known)
  UnsupportedVersion,  // a format version this build does not read
  CompanionNeeded,     // a file written beside a capture (trace-viewer export, sidecar): open companion()
  InvalidArgument,     // bad option or value given by the user
  Cancelled,           // the job was cancelled through its stop_token
  Internal,            // a bug or an unexpected exception; not the file's fault
};

// "not-found", "permission-denied", ... (stable names, used in logs and JSON).
const char* to_string(ErrorKind kind) noexcept;

// The kind for an errno from stat/open/read: ENOENT/ENOTDIR -> NotFound, EACCES/EPERM -> PermissionDenied,
// EISDIR -> NotAFile, anything else -> Io.
ErrorKind kind_of_errno(int err) noexcept;

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
  // The byte offset of the damage in the file (or in the decompressed data of a .gz), when known.
  const std::optional<std::uint64_t>& offset() const noexcept { return offset_; }
  // The file to open instead (CompanionNeeded), or empty.
  const std::string& companion() const noexcept { return companion_; }

  // Builders for a throw expression: throw Error(ErrorKind::Damaged, path, "...").at(offset);
  Error& at(std::uint64_t offset) {
    offset_ = offset;
    return *this;
  }
  Error& with_companion(std::string path) {
    companion_ = std::move(path);
    return *this;
  }

 private:
  ErrorKind kind_;
  std::string file_;
  std::string message_;
  std::optional<std::uint64_t> offset_;
  std::string companion_;
};

// Thrown when a std::stop_token asked a job to stop. Not an error for the user to see.
class Cancelled : public Error {
 public:
  explicit Cancelled(std::string file = {}) : Error(ErrorKind::Cancelled, std::move(file), "cancelled") {}
};

}  // namespace oomscope
