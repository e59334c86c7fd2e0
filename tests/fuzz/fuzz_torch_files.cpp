// libFuzzer target for the readers of the other memory files beside snapshots (core/snapshot): the pprof
// device-memory profile (a protobuf walked by hand, gzip or not), the Kineto / Chrome trace JSON and the
// HTA raw memory timeline. Each gets the same bytes: each must give its model or an oomscope::Error that
// says something, never a crash, a hang or another exception. What the pages read from each model
// (groups by kind, devices, steps) is computed too; a Kineto trace is also read as two ranks of one job
// (its distributedInfo rank, and a copy named by its file name) with that job's text and JSON, and laid over
// itself (its ProfilerStep#N markers), so the reader's distributedInfo and step fields reach their users.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "core/snapshot/hta_raw.h"
#include "core/snapshot/kineto.h"
#include "core/snapshot/kineto_overlay.h"
#include "core/snapshot/kineto_ranks.h"
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
    const auto named = std::make_shared<KinetoTrace>(*trace);
    named->path = "<fuzz>/rank_1.json";
    named->distributed.reset();
    check([&] {
      const KinetoRankJob job = compare_kineto_ranks({trace, named}, std::nullopt);
      std::ostringstream text;
      if (job.is_job) write_kineto_ranks_text(text, job);
      touched += text.str().size() + kineto_ranks_json(job).dump().size();
    });
    touched += overlay_kineto(*trace, *named, 16).a.steps.size();
    require_memory_events(*trace);
  });
  check([&] {
    const auto timeline = read_hta_raw_from_text(bytes, "<fuzz input>");
    touched += timeline->steps.size() + static_cast<std::size_t>(timeline->peak_bytes & 1);
  });
  __asm__ volatile("" : : "r"(touched) : "memory");
  return 0;
}
