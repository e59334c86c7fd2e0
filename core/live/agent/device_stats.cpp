// NVML (dlopen) and CUDA runtime device sources, and the process RSS source (see device_stats.h).

#include "core/live/agent/device_stats.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <vector>

#ifdef OOMSCOPE_HAVE_CUDART
#include <cuda_runtime_api.h>
#endif

namespace oomscope::live {

namespace {

// The NVML ABI used here (stable across drivers): return codes are ints, 0 = success.
using nvmlDevice = void*;
struct NvmlMemory {
  unsigned long long total, free, used;
};
struct NvmlProcessV1 {  // nvmlDeviceGetComputeRunningProcesses
  unsigned int pid;
  unsigned long long used;
};
struct NvmlProcessV2 {  // the _v2 and _v3 entry points
  unsigned int pid;
  unsigned long long used;
  unsigned int gpu_instance, compute_instance;
};
constexpr int kNvmlInsufficientSize = 7;
constexpr unsigned long long kNvmlValueNotAvailable = ~0ull;

struct Nvml {
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*handle)(unsigned, nvmlDevice*) = nullptr;
  int (*memory)(nvmlDevice, NvmlMemory*) = nullptr;
  int (*name)(nvmlDevice, char*, unsigned) = nullptr;
  int (*procs_v2)(nvmlDevice, unsigned*, NvmlProcessV2*) = nullptr;
  int (*procs_v1)(nvmlDevice, unsigned*, NvmlProcessV1*) = nullptr;
  const char* (*error_string)(int) = nullptr;
  const char* procs_v2_name = "";  // which of _v3 and _v2 was bound
  std::string error;
};

// "GPU is lost (code 15)": NVML's own words for a code when the library has them.
std::string nvml_code(const Nvml& n, int rc) {
  const char* text = n.error_string ? n.error_string(rc) : nullptr;
  return (text && *text ? std::string(text) + " " : std::string()) + "(code " + std::to_string(rc) + ")";
}

template <class F>
void bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
}

// Loaded once per process; never unloaded (NVML does not like repeated init/shutdown from many agents).
Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    n.lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n.lib) {
      n.error = "no NVIDIA driver here (libnvidia-ml.so.1 not found)";
      return;
    }
    bind(n.lib, n.init, "nvmlInit_v2");
    bind(n.lib, n.count, "nvmlDeviceGetCount_v2");
    bind(n.lib, n.handle, "nvmlDeviceGetHandleByIndex_v2");
    bind(n.lib, n.memory, "nvmlDeviceGetMemoryInfo");
    bind(n.lib, n.name, "nvmlDeviceGetName");
    n.procs_v2_name = "nvmlDeviceGetComputeRunningProcesses_v3";
    bind(n.lib, n.procs_v2, n.procs_v2_name);
    if (!n.procs_v2) {
      n.procs_v2_name = "nvmlDeviceGetComputeRunningProcesses_v2";
      bind(n.lib, n.procs_v2, n.procs_v2_name);
    }
    bind(n.lib, n.procs_v1, "nvmlDeviceGetComputeRunningProcesses");
    bind(n.lib, n.error_string, "nvmlErrorString");
    if (!n.init || !n.count || !n.handle || !n.memory) {
      n.error = "libnvidia-ml.so.1 lacks the functions needed";
      n.init = nullptr;
      return;
    }
    if (const int rc = n.init(); rc != 0) {
      n.error = "NVML did not initialise: " + nvml_code(n, rc);
      n.init = nullptr;
    }
  });
  return n;
}

// What the driver charges process `pid` on one device, from the newest process list the library has
// (_v3, _v2: nvmlProcessInfo_v2_t; else the v1 list). A failed call, a process not listed or a figure NVML
// does not have leaves device_used out of the sample, and says so once, in one sentence, each time the
// state changes (at most 20 times; then once that further changes go unsaid).
class NvmlSource final : public StatsSource {
 public:
  NvmlSource(nvmlDevice dev, std::int64_t pid) : dev_(dev), pid_(pid) {}
  std::string name() const override { return "nvml"; }
  void fill(Sample& s) override {
    Nvml& n = nvml();
    std::string state;  // empty: the figure was read
    if (n.procs_v2)
      state = read(s, n.procs_v2, n.procs_v2_name);
    else if (n.procs_v1)
      state = read(s, n.procs_v1, "nvmlDeviceGetComputeRunningProcesses");
    else
      state = "this libnvidia-ml.so.1 has no process list; device_used is left out";
    say(state);
  }

 private:
  template <class Info>
  std::string read(Sample& s, int (*list)(nvmlDevice, unsigned*, Info*), const char* fn) {
    Nvml& n = nvml();
    std::vector<Info> procs(64);
    int rc = 0;
    unsigned count = 0;
    // Too small an array: NVML says how many there are (and fills nothing); ask again with room for them.
    for (int attempt = 0; attempt < 4; ++attempt) {
      count = static_cast<unsigned>(procs.size());
      rc = list(dev_, &count, procs.data());
      if (rc != kNvmlInsufficientSize) break;
      procs.resize(static_cast<std::size_t>(count) + 16);
    }
    if (rc != 0)
      return std::string("NVML ") + fn + " failed: " + nvml_code(n, rc) + "; device_used is left out";
    for (unsigned i = 0; i < count && i < procs.size(); ++i) {
      if (procs[i].pid != pid_) continue;
      if (procs[i].used == kNvmlValueNotAvailable)
        return "NVML lists process " + std::to_string(pid_) +
               " without a memory figure (NVML_VALUE_NOT_AVAILABLE); device_used is left out";
      s.set(Field::DeviceUsed, static_cast<std::int64_t>(procs[i].used));
      return {};
    }
    return "NVML does not list process " + std::to_string(pid_) +
           " on this GPU (no CUDA context yet?); device_used is left out";
  }
  void say(const std::string& state) {
    if (state == said_) return;
    if (changes_ < 20) {
      const std::string text =
          state.empty() ? (said_.empty() ? "" : "NVML answers again: device_used is back") : state;
      if (!text.empty()) std::fprintf(stderr, "oomscope-agent: %s\n", text.c_str());
    } else if (changes_ == 20) {
      std::fprintf(stderr, "oomscope-agent: NVML keeps changing state; further changes are not reported\n");
    }
    ++changes_;
    said_ = state;
  }

  nvmlDevice dev_;
  std::int64_t pid_;
  std::string said_;  // the state last said (empty: reading)
  int changes_ = 0;
};

#ifdef OOMSCOPE_HAVE_CUDART
class CudartSource final : public StatsSource {
 public:
  std::string name() const override { return "cudaMemGetInfo"; }
  void fill(Sample& s) override {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess && total >= free)
      s.set(Field::DeviceUsed, static_cast<std::int64_t>(total - free));
  }
};
#endif

}  // namespace

std::unique_ptr<StatsSource> make_nvml_source(int index, std::int64_t pid, DeviceInfo& info,
                                              std::string& why) {
  Nvml& n = nvml();
  if (!n.init) {
    why = n.error;
    return nullptr;
  }
  unsigned count = 0;
  if (const int rc = n.count(&count); rc != 0) {
    why = "NVML could not count the GPUs: " + nvml_code(n, rc);
    return nullptr;
  }
  if (count == 0) {
    why = "NVML sees no GPU";
    return nullptr;
  }
  if (index < 0 || static_cast<unsigned>(index) >= count) {
    why = "NVML sees " + std::to_string(count) + " GPUs, not a device " + std::to_string(index);
    return nullptr;
  }
  nvmlDevice dev = nullptr;
  if (const int rc = n.handle(static_cast<unsigned>(index), &dev); rc != 0) {
    why = "NVML gave no handle for device " + std::to_string(index) + ": " + nvml_code(n, rc);
    return nullptr;
  }
  NvmlMemory mem{};
  if (const int rc = n.memory(dev, &mem); rc == 0)
    info.total_bytes = static_cast<std::int64_t>(mem.total);
  else
    std::fprintf(stderr,
                 "oomscope-agent: NVML gave no memory figures for device %d: %s; its capacity is unknown\n",
                 index, nvml_code(n, rc).c_str());
  char name[96] = {};
  if (n.name && n.name(dev, name, sizeof name - 1) == 0) info.name = name;
  return std::make_unique<NvmlSource>(dev, pid > 0 ? pid : ::getpid());
}

std::unique_ptr<StatsSource> make_cudart_source(DeviceInfo& info, std::string& why) {
#ifdef OOMSCOPE_HAVE_CUDART
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    why = "the CUDA runtime sees no device";
    return nullptr;
  }
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    why = "cudaMemGetInfo failed";
    return nullptr;
  }
  if (info.total_bytes == 0) info.total_bytes = static_cast<std::int64_t>(total);
  return std::make_unique<CudartSource>();
#else
  (void)info;
  why = "built without the CUDA toolkit";
  return nullptr;
#endif
}

std::vector<std::unique_ptr<StatsSource>> make_device_sources(int index, std::int64_t pid, DeviceInfo& info,
                                                              std::string& note) {
  std::vector<std::unique_ptr<StatsSource>> out;
  std::string nvml_why, cuda_why;
  if (auto s = make_nvml_source(index, pid, info, nvml_why)) {
    out.push_back(std::move(s));
    note = "device figures from NVML" + (info.name.empty() ? std::string() : " (" + info.name + ")");
    return out;
  }
  // cudaMemGetInfo describes this process's device only, so it serves only when watching ourselves.
  if (pid <= 0 || pid == ::getpid()) {
    if (auto s = make_cudart_source(info, cuda_why)) {
      out.push_back(std::move(s));
      note = "device figures from cudaMemGetInfo (whole device; " + nvml_why + ")";
      return out;
    }
  } else {
    cuda_why = "cudaMemGetInfo cannot see another process";
  }
  note = "no device figures: " + nvml_why + "; " + cuda_why;
  return out;
}

ProcessRssSource::ProcessRssSource(std::int64_t pid)
    : path_(pid > 0 ? "/proc/" + std::to_string(pid) + "/statm" : "/proc/self/statm"),
      page_(::sysconf(_SC_PAGESIZE)) {}

void ProcessRssSource::fill(Sample& s) {
  std::FILE* f = std::fopen(path_.c_str(), "r");
  if (!f) return;
  long long size = 0, resident = 0;
  if (std::fscanf(f, "%lld %lld", &size, &resident) == 2) s.set(Field::Rss, resident * page_);
  std::fclose(f);
}

}  // namespace oomscope::live
