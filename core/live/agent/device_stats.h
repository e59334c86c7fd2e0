#pragma once
// Device memory figures for the C++ agent, without linking any driver library:
// - NVML through dlopen("libnvidia-ml.so.1"): the memory a process uses on its GPU (device_used), as the
//   driver accounts it (CUDA context and libraries included), and the device's capacity;
// - cudaMemGetInfo from the static CUDA runtime, only when the CUDA toolkit was found at build time:
//   the used memory of the whole device (total - free), for when NVML cannot see per-process figures.
// Without a GPU or a driver both are absent; make_device_sources() says so once, in `note`, not as an error.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/live/agent/agent_server.h"

namespace oomscope::live {

struct DeviceInfo {
  std::string name;
  std::int64_t total_bytes = 0;
};

// NVML figures for process `pid` (0: this process) on device `index`. Null when NVML is unavailable, with
// the reason in `why`.
std::unique_ptr<StatsSource> make_nvml_source(int index, std::int64_t pid, DeviceInfo& info,
                                              std::string& why);
// cudaMemGetInfo on the current device. Null (and why) when built without the toolkit or no device answers.
std::unique_ptr<StatsSource> make_cudart_source(DeviceInfo& info, std::string& why);

// NVML first, the CUDA runtime as the fallback. `note` says in one sentence what was found or why nothing.
std::vector<std::unique_ptr<StatsSource>> make_device_sources(int index, std::int64_t pid, DeviceInfo& info,
                                                              std::string& note);

// Resident set size of a process from /proc/PID/statm (0: this process). Absent on other systems.
class ProcessRssSource final : public StatsSource {
 public:
  explicit ProcessRssSource(std::int64_t pid = 0);
  std::string name() const override { return "process rss"; }
  void fill(Sample& sample) override;

 private:
  std::string path_;
  long page_ = 4096;
};

}  // namespace oomscope::live
