#include "core/util/error.h"

#include <cerrno>

#include "core/util/enum_names.h"

namespace oomscope {

namespace {

constexpr EnumName<ErrorKind> kErrorKindNames[] = {
    {ErrorKind::NotFound, "not-found"},
    {ErrorKind::PermissionDenied, "permission-denied"},
    {ErrorKind::NotAFile, "not-a-file"},
    {ErrorKind::Io, "io"},
    {ErrorKind::Empty, "empty"},
    {ErrorKind::TooLarge, "too-large"},
    {ErrorKind::Gzip, "gzip"},
    {ErrorKind::Riegeli, "riegeli"},
    {ErrorKind::NotACapture, "not-a-capture"},
    {ErrorKind::Truncated, "truncated"},
    {ErrorKind::Changed, "changed"},
    {ErrorKind::Damaged, "damaged"},
    {ErrorKind::UnsupportedVersion, "unsupported-version"},
    {ErrorKind::CompanionNeeded, "companion-needed"},
    {ErrorKind::InvalidArgument, "invalid-argument"},
    {ErrorKind::Cancelled, "cancelled"},
    {ErrorKind::Internal, "internal"},
};
static_assert(names_every_value(kErrorKindNames, ErrorKind::Internal));

}  // namespace

const char* to_string(ErrorKind kind) noexcept { return enum_name(kErrorKindNames, kind); }

ErrorKind kind_of_errno(int err) noexcept {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return ErrorKind::NotFound;
    case EACCES:
    case EPERM:
      return ErrorKind::PermissionDenied;
    case EISDIR:
      return ErrorKind::NotAFile;
    default:
      return ErrorKind::Io;
  }
}

}  // namespace oomscope
