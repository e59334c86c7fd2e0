// The SIGBUS handler behind BusGuard (bus_guard.h). Only async-signal-safe work happens in the handler:
// atomic loads and stores on a fixed table, mmap and sysconf.

#include "core/capture/detail/bus_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace oomscope::capture {

namespace {

constexpr int kSlots = 256;

struct Slot {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> shrank{false};
  std::atomic<bool> used{false};
};

Slot g_slots[kSlots];
struct sigaction g_previous {};

void pass_on(int sig, siginfo_t* info, void* context) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) {
      g_previous.sa_sigaction(sig, info, context);
      return;
    }
  } else if (g_previous.sa_handler != SIG_IGN && g_previous.sa_handler != SIG_DFL && g_previous.sa_handler) {
    g_previous.sa_handler(sig);
    return;
  }
  // Default action: restore it and return; the faulting access runs again and ends the process as it would
  // have without us.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGBUS, &dfl, nullptr);
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info ? info->si_addr : nullptr);
  for (Slot& s : g_slots) {
    const std::uintptr_t begin = s.begin.load(std::memory_order_acquire);
    const std::uintptr_t end = s.end.load(std::memory_order_acquire);
    if (begin == 0 || addr < begin || addr >= end) continue;
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t from = addr & ~(page - 1);
    // Zeros from the faulting page to the end of the mapping: later reads there do not fault again.
    void* done = ::mmap(reinterpret_cast<void*>(from), end - from, PROT_READ,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (done == MAP_FAILED) break;
    s.shrank.store(true, std::memory_order_release);
    return;
  }
  pass_on(sig, info, context);
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_previous);
  });
}

}  // namespace

bool BusGuard::guard(const void* begin, std::size_t bytes, BusGuard& into) {
  install_once();
  const auto b = reinterpret_cast<std::uintptr_t>(begin);
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].used.compare_exchange_strong(expected, true)) continue;
    g_slots[i].shrank.store(false);
    g_slots[i].end.store(b + bytes, std::memory_order_release);
    g_slots[i].begin.store(b, std::memory_order_release);
    into.slot_ = i;
    return true;
  }
  return false;
}

void BusGuard::release() {
  if (slot_ < 0) return;
  g_slots[slot_].begin.store(0, std::memory_order_release);
  g_slots[slot_].end.store(0, std::memory_order_release);
  g_slots[slot_].used.store(false, std::memory_order_release);
  slot_ = -1;
}

bool BusGuard::shrank() const { return slot_ >= 0 && g_slots[slot_].shrank.load(std::memory_order_acquire); }

}  // namespace oomscope::capture
