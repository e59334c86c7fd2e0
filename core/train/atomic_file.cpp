#include "core/train/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/util/error.h"

namespace oomscope::train {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw Error(ErrorKind::Io, path, what + ": " + std::strerror(err));
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(tmp, "cannot create the temporary file", errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(tmp, "cannot write", err);
    }
    done += static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(tmp, "fsync failed", err);
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot rename " + tmp + " over it", err);
  }
  // The rename itself is durable once the directory is synced.
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(ErrorKind::NotFound, path, "no such file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::Io, path, "read failed");
  return s.str();
}

}  // namespace oomscope::train
