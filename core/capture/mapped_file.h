#pragma once
// The bytes of a capture, kept for the life of the Capture: a read-only memory mapping of the file, or
// (for the fuzzer and tests) an owned copy of bytes that never touched the disk.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/capture/bus_guard.h"

namespace oomscope::capture {

class MappedFile {
 public:
  // Maps `path` read-only. Throws oomscope::Error (NotFound, Io, Empty, TooLarge) naming the file. Nothing is
  // read yet: the caller checks the start of the file, then calls prefetch(). A file that shrinks while
  // mapped reads as zeros past its new end and sets shrank() (bus_guard.h) instead of killing the process.
  static std::shared_ptr<const MappedFile> open(const std::string& path, std::uint64_t max_bytes);
  static std::shared_ptr<const MappedFile> from_bytes(std::string bytes);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const std::uint8_t* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(data_), static_cast<std::size_t>(size_)};
  }

  // Tells the kernel that [0, end) has been read for now: its pages leave this process's resident set
  // (they stay in the page cache and come back on the next access, e.g. Capture::event_stats). Keeps the
  // reader's footprint near its own tables instead of the whole file. No-op for owned bytes.
  void release_prefix(std::uint64_t end) const;

  // Has the kernel read the whole mapping in ahead of the scan. No-op for owned bytes.
  void prefetch() const;

  // True when the file became shorter than the mapping while it was mapped (its tail read as zeros).
  bool shrank() const { return guard_.shrank(); }
  // Memory-mapped from a file (not owned bytes); the file's device and inode then name it.
  bool mapped() const { return mapping_ != nullptr; }
  std::uint64_t device() const { return device_; }
  std::uint64_t inode() const { return inode_; }

 private:
  MappedFile() = default;
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
  void* mapping_ = nullptr;  // non-null when mmap'ed
  std::string owned_;
  std::uint64_t device_ = 0, inode_ = 0;
  BusGuard guard_;
};

}  // namespace oomscope::capture
