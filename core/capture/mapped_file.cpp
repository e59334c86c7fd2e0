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
    if (err == ENOENT || err == ENOTDIR)
      throw Error(ErrorKind::NotFound, path, "no such file");
    throw Error(ErrorKind::Io, path, "cannot read the file: " + errno_text(err));
  }
  if (S_ISDIR(st.st_mode))
    throw Error(ErrorKind::Io, path,
                "is a directory, not a capture file; give the <host>.xplane.pb file (JAX and TensorFlow write it "
                "under plugins/profile/<date>/ in the trace directory)");
  if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::Io, path, "is not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0) throw Error(ErrorKind::Empty, path, "the file is empty (0 bytes); the capture was not written");
  if (size > max_bytes)
    throw Error(ErrorKind::TooLarge, path,
                "the file is " + format_bytes(size) + ", larger than the 2 GiB a protobuf capture can hold");

  Fd fd;
  fd.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd.fd < 0) throw Error(ErrorKind::Io, path, "cannot open the file: " + errno_text(errno));
  void* addr = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.fd, 0);
  if (addr == MAP_FAILED) throw Error(ErrorKind::Io, path, "cannot map the file into memory: " + errno_text(errno));
  // The scan reads front to back once; the kernel may read ahead aggressively.
  ::madvise(addr, static_cast<std::size_t>(size), MADV_SEQUENTIAL);

  std::shared_ptr<MappedFile> file(new MappedFile());
  file->mapping_ = addr;
  file->data_ = static_cast<const std::uint8_t*>(addr);
  file->size_ = size;
  return file;
}

std::shared_ptr<const MappedFile> MappedFile::from_bytes(std::string bytes) {
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->owned_ = std::move(bytes);
  file->data_ = reinterpret_cast<const std::uint8_t*>(file->owned_.data());
  file->size_ = file->owned_.size();
  return file;
}

void MappedFile::release_prefix(std::uint64_t end) const {
  if (!mapping_) return;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  end = std::min(end, size_) / page * page;
  if (end > 0) ::madvise(mapping_, static_cast<std::size_t>(end), MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (mapping_) ::munmap(mapping_, static_cast<std::size_t>(size_));
}

}  // namespace oomscope::capture
