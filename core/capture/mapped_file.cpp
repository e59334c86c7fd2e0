#include "core/capture/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::capture {

namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, std::uint64_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) throw Error(ErrorKind::NotFound, path, "no such file");
    throw Error(kind_of_errno(err), path, "cannot read the file: " + errno_text(err));
  }
  if (S_ISDIR(st.st_mode))
    throw Error(
        ErrorKind::NotAFile, path,
        "is a directory, not a capture file; give the <host>.xplane.pb file (JAX and TensorFlow write it "
        "under plugins/profile/<date>/ in the trace directory)");
  if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::NotAFile, path, "is not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0)
    throw Error(ErrorKind::Empty, path, "the file is empty (0 bytes); the capture was not written");
  if (size > max_bytes)
    throw Error(ErrorKind::TooLarge, path,
                "the file is " + format_bytes(size) + ", larger than the 2 GiB a protobuf capture can hold");

  Fd fd;
  fd.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd.fd < 0) {
    const int err = errno;
    throw Error(kind_of_errno(err), path, "cannot open the file: " + errno_text(err));
  }
  // Not populated here: the reader first checks that the file starts like a capture (a 2 GiB file of zeros
  // is refused after reading one page), then prefetch()es.
  void* addr = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd.fd, 0);
  if (addr == MAP_FAILED)
    throw Error(ErrorKind::Io, path, "cannot map the file into memory: " + errno_text(errno));
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->mapping_ = addr;
  file->data_ = static_cast<const std::uint8_t*>(addr);
  file->size_ = size;
  file->device_ = static_cast<std::uint64_t>(st.st_dev);
  file->inode_ = static_cast<std::uint64_t>(st.st_ino);
  if (!BusGuard::guard(addr, static_cast<std::size_t>(size), file->guard_)) {
    // Every guard slot is taken (hundreds of captures open at once): read the bytes into memory instead,
    // where a shrinking file shows up as a short read.
    ::munmap(addr, static_cast<std::size_t>(size));
    file->mapping_ = nullptr;
    std::string bytes(static_cast<std::size_t>(size), '\0');
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::pread(fd.fd, bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error(ErrorKind::Io, path, "cannot read the file: " + errno_text(errno));
      if (n == 0)
        throw Error(ErrorKind::Changed, path,
                    "the file shrank while it was being read (from " +
                        format_bytes_exact(static_cast<std::int64_t>(size)) + " to " +
                        format_bytes_exact(static_cast<std::int64_t>(got)) +
                        " bytes); read it again once it is complete");
      got += static_cast<std::size_t>(n);
    }
    file->owned_ = std::move(bytes);
    file->data_ = reinterpret_cast<const std::uint8_t*>(file->owned_.data());
  }
  return file;
}

void MappedFile::prefetch() const {
  if (!mapping_) return;
  // The scan reads front to back, a plane at a time; the kernel may read ahead aggressively.
  ::madvise(mapping_, static_cast<std::size_t>(size_), MADV_SEQUENTIAL);
  ::madvise(mapping_, static_cast<std::size_t>(size_), MADV_WILLNEED);
}

namespace {
std::uint64_t page_size() {
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return page;
}
}  // namespace

void MappedFile::populate(std::uint64_t begin, std::uint64_t end) const {
  if (!mapping_) return;
    // MADV_POPULATE_READ (Linux 5.14) maps the pages now, as MAP_POPULATE does; where it is missing, or the
    // file shrank meanwhile (it then fails instead of faulting), the pages come in as the pass reaches them.
#ifdef MADV_POPULATE_READ
  constexpr int kPopulateRead = MADV_POPULATE_READ;
#else
  constexpr int kPopulateRead = 22;  // Linux uapi value, for older libc headers
#endif
  begin = begin / page_size() * page_size();
  end = std::min(end, size_);
  if (end <= begin) return;
  ::madvise(static_cast<std::uint8_t*>(mapping_) + begin, static_cast<std::size_t>(end - begin),
            kPopulateRead);
}

std::shared_ptr<const MappedFile> MappedFile::from_bytes(std::string bytes) {
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->owned_ = std::move(bytes);
  file->data_ = reinterpret_cast<const std::uint8_t*>(file->owned_.data());
  file->size_ = file->owned_.size();
  return file;
}

void MappedFile::release(std::uint64_t begin, std::uint64_t end) const {
  if (!mapping_) return;
  const std::uint64_t page = page_size();
  begin = (begin + page - 1) / page * page;
  end = std::min(end, size_) / page * page;
  if (end > begin)
    ::madvise(static_cast<std::uint8_t*>(mapping_) + begin, static_cast<std::size_t>(end - begin),
              MADV_DONTNEED);
}

void PassWindow::start(std::uint64_t at, std::uint64_t end, bool populate) {
  begin_ = released_ = at;
  end_ = std::min(end, file_.size());
  populate_ = populate && end_ > at && end_ - at >= kAhead;
  populated_ = populate_ ? at : ~std::uint64_t{0};
  advance(at);
}

void PassWindow::move(std::uint64_t at) {
  if (populate_ && at + kAhead / 2 > populated_) {
    const std::uint64_t to = std::min(at + kAhead, end_);
    if (to > std::max(populated_, at)) file_.populate(std::max(populated_, at), to);
    populated_ = at + kAhead;
  }
  if (at > released_ + 2 * kBehind) {
    file_.release(released_, at - kBehind);
    released_ = at - kBehind;
  }
}

void PassWindow::finish(std::uint64_t at) {
  const std::uint64_t to = std::max(at, populate_ ? std::min(populated_, end_) : at);
  if (pending_end_ == pending_begin_) pending_begin_ = begin_;
  pending_begin_ = std::min(pending_begin_, begin_);
  pending_end_ = std::max(pending_end_, to);
  if (pending_end_ - pending_begin_ >= 2 * kBehind) flush();
  populate_ = false;
  populated_ = ~std::uint64_t{0};
  released_ = std::max(released_, at);
}

void PassWindow::flush() {
  if (pending_end_ > pending_begin_) file_.release(pending_begin_, pending_end_);
  pending_begin_ = pending_end_ = 0;
}

MappedFile::~MappedFile() {
  if (!mapping_) return;
  guard_.release();  // stop guarding before the range can be reused by another mapping
  ::munmap(mapping_, static_cast<std::size_t>(size_));
}

}  // namespace oomscope::capture
