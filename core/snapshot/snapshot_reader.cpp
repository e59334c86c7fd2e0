// Reading a snapshot: the file is mapped without populating it (pages come in as the parser reaches them
// and are dropped behind it), parsed with trace entries going straight into the model, then built.

#include "core/snapshot/snapshot_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/capture/mapped_file.h"
#include "core/snapshot/json_snapshot.h"
#include "core/snapshot/pickle_reader.h"
#include "core/snapshot/snapshot_builder.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/gzip.h"

namespace oomscope::snapshot {

namespace {

struct Mapping {
  void* addr = nullptr;
  std::size_t size = 0;
  ~Mapping() {
    if (addr) ::munmap(addr, size);
  }
};

PickleSource map_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) throw Error(ErrorKind::NotFound, path, "no such file");
    throw Error(kind_of_errno(err), path, std::string("cannot read the file: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) throw Error(ErrorKind::NotAFile, path, "is a directory, not a snapshot file");
  if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::NotAFile, path, "is not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0)
    throw Error(ErrorKind::Empty, path, "the file is empty (0 bytes); the snapshot was not written");
  if (size > kMaxSnapshotBytes)
    throw Error(ErrorKind::TooLarge, path,
                "the file is " + format_bytes(size) + ", more than the " + format_bytes(kMaxSnapshotBytes) +
                    " oomscope reads");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw Error(kind_of_errno(err), path, std::string("cannot open the file: ") + std::strerror(err));
  }
  void* addr = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_err = errno;
  ::close(fd);
  if (addr == MAP_FAILED)
    throw Error(ErrorKind::Io, path,
                std::string("cannot map the file into memory: ") + std::strerror(map_err));
  ::madvise(addr, static_cast<std::size_t>(size), MADV_SEQUENTIAL);
  auto mapping = std::make_shared<Mapping>();
  mapping->addr = addr;
  mapping->size = static_cast<std::size_t>(size);
  PickleSource src;
  src.data = static_cast<const std::uint8_t*>(addr);
  src.size = size;
  src.keep = mapping;
  src.release = [addr, size](std::uint64_t end) {
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    end = std::min(end, size) / page * page;
    if (end > 0) ::madvise(addr, static_cast<std::size_t>(end), MADV_DONTNEED);
  };
  return src;
}

std::shared_ptr<const Snapshot> read_pickle(PickleSource source, const std::string& name,
                                            ProgressSink& progress, std::stop_token stop,
                                            std::uint64_t file_size, bool json) {
  auto snap = std::make_shared<Snapshot>();
  snap->path = name;
  snap->file_size = file_size;
  snap->protocol = json ? 0 : (source.size >= 2 ? source.data[1] : 0);
  {
    TraceEntrySink sink(*snap);
    sink.records.reserve(static_cast<std::size_t>(source.size / 40 + 16));  // address space only until used
    const auto tree = parse_pickle(std::move(source), name, progress, stop, &sink);
    build_snapshot(*tree, *snap, progress, stop, &sink);
  }
  return snap;
}

PickleSource from_string(std::string bytes) {
  auto owner = std::make_shared<std::string>(std::move(bytes));
  PickleSource src;
  src.data = reinterpret_cast<const std::uint8_t*>(owner->data());
  src.size = owner->size();
  src.keep = owner;
  return src;
}

// A pickle, a JSON snapshot (re-encoded as a pickle), or either of them gzip'd.
std::shared_ptr<const Snapshot> read_source(PickleSource source, const std::string& name,
                                            ProgressSink& progress, std::stop_token stop) {
  const std::uint64_t file_size = source.size;
  std::string_view bytes(reinterpret_cast<const char*>(source.data), static_cast<std::size_t>(source.size));
  std::string plain;
  if (is_gzip(bytes)) {
    progress.report(0.0, "decompressing");
    plain = gunzip(bytes, name, kMaxSnapshotBytes);
    bytes = plain;
  }
  if (looks_like_json(bytes)) {
    progress.report(0.0, "converting the JSON");
    std::string pickle = json_to_pickle(bytes, name, stop);
    plain.clear();
    plain.shrink_to_fit();
    source = {};  // the mapping is no longer needed
    return read_pickle(from_string(std::move(pickle)), name, progress, std::move(stop), file_size, true);
  }
  if (!plain.empty()) source = from_string(std::move(plain));
  return read_pickle(std::move(source), name, progress, std::move(stop), file_size, false);
}

}  // namespace

std::shared_ptr<const Snapshot> read_snapshot(const std::string& path, ProgressSink& progress,
                                              std::stop_token stop) {
  return read_source(map_file(path), path, progress, std::move(stop));
}

std::shared_ptr<const Snapshot> read_snapshot_from_memory(std::string bytes, const std::string& name,
                                                          ProgressSink& progress, std::stop_token stop) {
  auto file = capture::MappedFile::from_bytes(std::move(bytes));
  PickleSource src{file->data(), file->size(), file, {}};
  return read_source(std::move(src), name, progress, std::move(stop));
}

}  // namespace oomscope::snapshot
