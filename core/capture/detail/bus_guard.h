#pragma once
// Survives a mapped file that shrinks while it is mapped (a profiler still writing it, a copy being
// replaced, a network file system). Reading a page of a file mapping that now lies past the end of the
// file raises SIGBUS, which would kill the process. A process-wide SIGBUS handler, installed once, looks
// the faulting address up in a small table of guarded mappings: for one of them it maps a zero-filled page
// range over the rest of the mapping and marks the mapping as shrunk, so the read that faulted carries on
// (reading zeros) and the reader reports "the file shrank while it was being read" afterwards. A fault
// anywhere else goes to the handler that was there before (by default: the process dies as it always did).
// No longjmp: no C++ frame is ever skipped.

#include <cstddef>
#include <cstdint>

namespace oomscope::capture {

class BusGuard {
 public:
  // Guards [begin, begin + bytes). False when every slot is taken (the caller then reads the file into
  // memory it owns instead).
  static bool guard(const void* begin, std::size_t bytes, BusGuard& into);
  BusGuard() = default;
  BusGuard(const BusGuard&) = delete;
  BusGuard& operator=(const BusGuard&) = delete;
  ~BusGuard() { release(); }
  void release();  // stops guarding; call before the mapping is unmapped

  // True once a read past the file's end was caught in the guarded range.
  bool shrank() const;

 private:
  int slot_ = -1;
};

}  // namespace oomscope::capture
