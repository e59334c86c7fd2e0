#pragma once
// The bytes of a capture, kept for the life of the Capture: a read-only memory mapping of the file, or
// (for the fuzzer and tests) an owned copy of bytes that never touched the disk.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/capture/detail/bus_guard.h"

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

  // Has the kernel start reading the whole file into the page cache, ahead of the scan. Nothing is mapped
  // into this process by it: a pass maps what it is about to read with populate() and hands it back with
  // release(), so the process holds a window of the file, not all of it. No-op for owned bytes.
  void prefetch() const;
  // Maps the pages over [begin, end) into this process now, so that a front-to-back pass over them does not
  // fault them in one by one. No-op for owned bytes.
  void populate(std::uint64_t begin, std::uint64_t end) const;
  // Tells the kernel that the pages wholly inside [begin, end) are not needed for now: they leave this
  // process's resident set (they stay in the page cache and come back on the next access, e.g.
  // Capture::event_stats). No-op for owned bytes.
  void release(std::uint64_t begin, std::uint64_t end) const;

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

// The part of a mapping that a front-to-back pass over it (the reader's walks over a plane) keeps
// resident: the pages up to kAhead past where it is are populated, and those more than kBehind behind it
// are released, so the reader holds tens of MiB of the file at a time instead of all of it. Pages released
// behind a pass come back from the page cache when something reads them again.
class PassWindow {
 public:
  static constexpr std::uint64_t kAhead = 8ull << 20;
  static constexpr std::uint64_t kBehind = 8ull << 20;

  explicit PassWindow(const MappedFile& file) : file_(file) {}
  // A pass over [at, end) starts; `populate` is false for a pass that reads only a few bytes here and
  // there. Passes shorter than kAhead are not populated (their pages fault in as they are read).
  void start(std::uint64_t at, std::uint64_t end, bool populate);
  // The pass has reached byte `at` (cheap when there is nothing to do; call it often).
  void advance(std::uint64_t at) {
    if (at + kAhead / 2 > populated_ || at > released_ + 2 * kBehind) move(at);
  }
  // The pass is over at byte `at`: every page from its start on is released, also those that something
  // read again behind it. Short passes (the planes of a file of many small planes) are released together
  // once they add up to 2 * kBehind, so that they cost no system call each.
  void finish(std::uint64_t at);
  // Releases what finished short passes still hold.
  void flush();

 private:
  void move(std::uint64_t at);
  const MappedFile& file_;
  std::uint64_t begin_ = 0;                            // where the pass started
  std::uint64_t end_ = 0;                              // where it will end
  std::uint64_t pending_begin_ = 0, pending_end_ = 0;  // finished, not yet released (empty if equal)
  std::uint64_t released_ = 0;   // pages before this were released by this pass (or before it)
  std::uint64_t populated_ = 0;  // populated up to here
  bool populate_ = false;
};

}  // namespace oomscope::capture
