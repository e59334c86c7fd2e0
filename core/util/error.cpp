#include "core/util/error.h"

namespace oomscope {

const char* to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::NotFound:
      return "not-found";
    case ErrorKind::Io:
      return "io";
    case ErrorKind::Empty:
      return "empty";
    case ErrorKind::TooLarge:
      return "too-large";
    case ErrorKind::Gzip:
      return "gzip";
    case ErrorKind::Riegeli:
      return "riegeli";
    case ErrorKind::NotACapture:
      return "not-a-capture";
    case ErrorKind::Truncated:
      return "truncated";
    case ErrorKind::Damaged:
      return "damaged";
    case ErrorKind::InvalidArgument:
      return "invalid-argument";
    case ErrorKind::Cancelled:
      return "cancelled";
  }
  return "unknown";
}

}  // namespace oomscope
