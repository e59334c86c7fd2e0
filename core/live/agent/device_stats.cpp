// NVML (dlopen) and CUDA runtime device sources, and the process RSS source (see device_stats.h).

#include "core/live/agent/device_stats.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>

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
  std::string error;
};

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
    bind(n.lib, n.procs_v2, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!n.procs_v2) bind(n.lib, n.procs_v2, "nvmlDeviceGetComputeRunningProcesses_v2");
    bind(n.lib, n.procs_v1, "nvmlDeviceGetComputeRunningProcesses");
    if (!n.init || !n.count || !n.handle || !n.memory) {
      n.error = "libnvidia-ml.so.1 lacks the functions needed";
      n.init = nullptr;
      return;
    }
    if (const int rc = n.init(); rc != 0) {
      n.error = "NVML did not initialise (code " + std::to_string(rc) + ")";
      n.init = nullptr;
    }
  });
  return n;
}

class NvmlSource final : public StatsSource {
 public:
  NvmlSource(nvmlDevice dev, std::int64_t pid) : dev_(dev), pid_(pid) {}
  std::string name() const override { return "nvml"; }
  void fill(Sample& s) override {
    Nvml& n = nvml();
    // Per-process figure: what the driver charges this process (context and libraries included).
    unsigned count = 64;
    if (n.procs_v2) {
      NvmlProcessV2 procs[64];
      int rc = n.procs_v2(dev_, &count, procs);
      if (rc == 0 || rc == kNvmlInsufficientSize)
        for (unsigned i = 0; i < count && i < 64; ++i)
          if (procs[i].pid == pid_ && procs[i].used != kNvmlValueNotAvailable)
            s.set(Field::DeviceUsed, static_cast<std::int64_t>(procs[i].used));
    } else if (n.procs_v1) {
      NvmlProcessV1 procs[64];
      int rc = n.procs_v1(dev_, &count, procs);
      if (rc == 0 || rc == kNvmlInsufficientSize)
        for (unsigned i = 0; i < count && i < 64; ++i)
          if (procs[i].pid == pid_ && procs[i].used != kNvmlValueNotAvailable)
            s.set(Field::DeviceUsed, static_cast<std::int64_t>(procs[i].used));
    }
  }

 private:
  nvmlDevice dev_;
  std::int64_t pid_;
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
  if (n.count(&count) != 0 || count == 0) {
    why = "NVML sees no GPU";
    return nullptr;
  }
  if (index < 0 || static_cast<unsigned>(index) >= count) {
    why = "NVML sees " + std::to_string(count) + " GPUs, not a device " + std::to_string(index);
    return nullptr;
  }
  nvmlDevice dev = nullptr;
  if (n.handle(static_cast<unsigned>(index), &dev) != 0) {
    why = "NVML gave no handle for device " + std::to_string(index);
    return nullptr;
  }
  NvmlMemory mem{};
  if (n.memory(dev, &mem) == 0) info.total_bytes = static_cast<std::int64_t>(mem.total);
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
