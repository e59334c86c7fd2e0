#pragma once
// A made-up job of four CUDA ranks on one host for the store and overlay tests: each rank samples at
// 10 Hz for `steps` optimizer steps; rank 3 leaks `leak` bytes a step and, with `ooms`, sends an `oom`
// event 100 ms after its last sample, as rank 1 does 500 ms after its own. Played into any LiveSink (a
// Recorder writes it to a file, a Store or a LiveSession holds it), so the same records reach both paths.

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/live/protocol/sink.h"

namespace oomscope::live::testjob {

constexpr std::int64_t kGiB = 1ll << 30, kMiB = 1ll << 20;
constexpr std::int64_t kCapacity = 16 * kGiB;
constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // unix ns
constexpr std::int64_t kTick = 100'000'000;              // 10 Hz
constexpr int kLeaker = 3;

struct Job {
  int steps = 20;
  std::int64_t leak = 500 * kMiB;  // rank 3's growth a step
  bool ooms = true;
  bool with_steps = true;    // samples carry the step field
  std::int64_t start = kT0;  // the first sample's time
  int samples_per_step = 1;
};

inline std::int64_t allocated(const Job& j, int r, int i) {
  return 4 * kGiB + r * 256 * kMiB + (r == kLeaker ? i * j.leak : 0);
}
inline std::int64_t reserved(const Job& j, int r, int i) { return allocated(j, r, i) + kGiB; }
inline std::int64_t when(const Job& j, int r, int i, int k = 0) {
  return j.start + (i * j.samples_per_step + k) * kTick + r * 1000;
}

inline void play(LiveSink& sink, const Job& j) {
  for (int r = 0; r < 4; ++r) {
    Hello h;
    h.rank = r;
    h.world_size = 4;
    h.backend = "cuda";
    h.host = "node0";
    h.total_bytes = kCapacity;
    sink.on_endpoint(r, "127.0.0.1:" + std::to_string(7070 + r));
    sink.on_hello(r, h);
  }
  for (int i = 0; i < j.steps; ++i)
    for (int k = 0; k < j.samples_per_step; ++k)
      for (int r = 0; r < 4; ++r) {
        Sample s;
        s.t = when(j, r, i, k);
        if (j.with_steps) s.set(Field::Step, i);
        // Within a step the bytes rise to the step's figure at its last sample.
        const std::int64_t less = (j.samples_per_step - 1 - k) * kMiB;
        s.set(Field::Allocated, allocated(j, r, i) - less);
        s.set(Field::Reserved, reserved(j, r, i) - less);
        sink.on_sample(r, s);
      }
  if (!j.ooms) return;
  const int last = j.steps - 1;
  Event first;
  first.t = when(j, kLeaker, last, j.samples_per_step - 1) + kTick;
  first.kind = "oom";
  first.message = "CUDA out of memory. Tried to allocate 2.50 GiB. GPU 3 has a total capacity of 16 GiB";
  first.path = "/tmp/oom-rank3.pickle";
  sink.on_event(kLeaker, first);
  Event late;
  late.t = when(j, 1, last, j.samples_per_step - 1) + 5 * kTick;
  late.kind = "oom";
  late.step = last;
  late.message = "CUDA out of memory. Tried to allocate 512.00 MiB. GPU 1 has ...";
  sink.on_event(1, late);
}

inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("oomscope-job-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

}  // namespace oomscope::live::testjob
