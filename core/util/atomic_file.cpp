#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/util/error.h"

namespace oomscope {

namespace fs = std::filesystem;

namespace {

std::string reason(int err) { return std::strerror(err); }

}  // namespace

fs::path resolve_all_links(const fs::path& path) {
  std::error_code ec;
  fs::path pending = path.is_absolute() ? path : fs::current_path(ec) / path;
  // Walk component by component; a link's target replaces the components walked so far (absolute) or the
  // link's own name (relative), and the walk starts again. 40 links at most, like the kernel.
  for (int links = 0;;) {
    fs::path done = pending.root_path();
    bool restarted = false;
    const fs::path rel = pending.relative_path();
    for (auto it = rel.begin(); it != rel.end(); ++it) {
      if (*it == "." || it->empty()) continue;
      if (*it == "..") {
        done = done.parent_path();
        continue;
      }
      const fs::path next = done / *it;
      struct stat st {};
      if (::lstat(next.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        if (++links > 40) throw Error(ErrorKind::Io, path.string(), "too many levels of symbolic links");
        const fs::path target = fs::read_symlink(next, ec);
        if (ec)
          throw Error(ErrorKind::Io, path.string(),
                      "cannot read the symbolic link " + next.string() + ": " + ec.message());
        fs::path rest;
        for (auto r = std::next(it); r != rel.end(); ++r) rest /= *r;
        pending = (target.is_absolute() ? target : done / target) / rest;
        if (rest.empty()) pending = target.is_absolute() ? target : done / target;
        restarted = true;
        break;
      }
      done = next;
    }
    if (!restarted) return done;
  }
}

WriteResult write_file_atomically(const std::string& path, std::string_view content) {
  if (path.empty()) throw Error(ErrorKind::InvalidArgument, "", "the output file name is empty");
  WriteResult result;
  result.written = resolve_all_links(path);
  const fs::path folder = result.written.parent_path();
  struct stat st {};
  if (::stat(result.written.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      throw Error(ErrorKind::Io, path, "exists and is not a regular file; it was left alone");
    result.replaced = true;
  }
  std::string name = ".";  // appended, not "." + std::string: GCC 12 warns falsely (-Wrestrict) about that
  name.append(result.written.filename().string()).append(".tmp-XXXXXX");
  std::string tmpl = (folder / name).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    throw Error(ErrorKind::Io, path, "cannot create a file in " + folder.string() + ": " + reason(errno));
  const auto fail = [&](const std::string& what, int err) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw Error(ErrorKind::Io, path, what + ": " + reason(err) + "; nothing was changed");
  };
  // The new file gets the usual mode (0666 less the umask), or the mode of the file it replaces.
  mode_t mode = 0666;
  if (result.replaced) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  if (::fchmod(fd, mode) != 0) fail("cannot set the new file's permissions", errno);
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write the file", errno);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail("cannot write the file to disk", errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw Error(ErrorKind::Io, path, "cannot write the file: " + reason(err) + "; nothing was changed");
  }
  if (::rename(tmpl.c_str(), result.written.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw Error(ErrorKind::Io, path,
                "cannot put the file in place: " + reason(err) + "; nothing was changed");
  }
  // The rename itself survives a crash once the folder is synced (the file is complete either way).
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return result;
}

}  // namespace oomscope
