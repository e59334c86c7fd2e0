// libFuzzer target for the readers of the other memory files beside snapshots (core/snapshot): the pprof
// device-memory profile (a protobuf walked by hand, gzip or not), the Kineto / Chrome trace JSON and the
// HTA raw memory timeline. Each gets the same bytes: each must give its model or an oomscope::Error that
// says something, never a crash, a hang or another exception. What the pages read from each model
// (groups by kind, devices, steps) is computed too.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/snapshot/hta_raw.h"
#include "core/snapshot/kineto.h"
#include "core/snapshot/pprof_profile.h"
#include "core/util/error.h"

namespace {

template <typename Read>
void check(Read read) {
  try {
    read();
  } catch (const oomscope::Error& e) {
    if (e.message().empty()) __builtin_trap();  // every error must say something
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace oomscope::snapshot;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::size_t touched = 0;
  check([&] {
    const auto profile = read_pprof_from_bytes(bytes, "<fuzz input>");
    touched += profile->samples.size() + profile->frames.size() + profile->by_kind().size();
  });
  check([&] {
    const auto trace = read_kineto_trace_from_text(bytes, "<fuzz input>");
    touched += trace->devices.size() + trace->gpus.size();
    require_memory_events(*trace);
  });
  check([&] {
    const auto timeline = read_hta_raw_from_text(bytes, "<fuzz input>");
    touched += timeline->steps.size() + static_cast<std::size_t>(timeline->peak_bytes & 1);
  });
  __asm__ volatile("" : : "r"(touched) : "memory");
  return 0;
}
