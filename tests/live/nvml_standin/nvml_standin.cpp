// A stand-in libnvidia-ml.so.1 for the tests (tests/live/test_nvml_standin.py): the NVML entry points the
// agent binds (core/live/agent/device_stats.cpp), with NVML's C ABI as NVIDIA documents it (return codes
// are ints, 0 = success; nvmlMemory_t {total, free, used}; nvmlProcessInfo_v1_t {pid, usedGpuMemory};
// nvmlProcessInfo_v2_t / nvmlProcessInfo_t {pid, usedGpuMemory, gpuInstanceId, computeInstanceId}),
// returning figures and error codes scripted through the environment of the process that loads it:
//
//   STANDIN_NVML_INIT_RC      nvmlInit_v2's return code (default 0)
//   STANDIN_NVML_COUNT        devices (default 1)
//   STANDIN_NVML_HANDLE_RC    nvmlDeviceGetHandleByIndex_v2's return code
//   STANDIN_NVML_MEMORY_RC    nvmlDeviceGetMemoryInfo's return code
//   STANDIN_NVML_TOTAL        the device's total bytes (default 80 GiB)
//   STANDIN_NVML_NAME         the device's name (default "Stand-in GPU")
//   STANDIN_NVML_PID          the process whose memory is scripted (others are listed with 1 MiB)
//   STANDIN_NVML_OTHERS       other processes listed before it (default 1)
//   STANDIN_NVML_USED         its bytes, one per process-list call, comma-separated, the last repeated;
//                             "na" for NVML_VALUE_NOT_AVAILABLE, "-" for not listed at all
//   STANDIN_NVML_PROCS_RC     the process-list call's return codes, the same way (default 0)
//   STANDIN_NVML_LOG          a file that gets one line per call: the entry point's name and its code
//
// Built three times (tests/CMakeLists.txt): STANDIN_PROCS_VERSION 1 exports only the v1 process list, 2
// adds _v2, 3 adds _v3; STANDIN_NO_MEMORY leaves nvmlDeviceGetMemoryInfo out (a library lacking a
// function the agent needs).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kInsufficientSize = 7;
constexpr unsigned long long kNotAvailable = ~0ull;
int g_device_token = 0;  // the handle given out points here
unsigned g_calls = 0;    // process-list calls so far

long long env_int(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

// The call'th item (from 0) of a comma-separated list, the last one repeated; empty when unset.
std::string nth(const char* name, unsigned call) {
  const char* v = std::getenv(name);
  if (!v || !*v) return {};
  std::vector<std::string> items;
  std::string cur;
  for (const char* p = v;; ++p) {
    if (*p == ',' || *p == '\0') {
      items.push_back(cur);
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur += *p;
    }
  }
  return items[call < items.size() ? call : items.size() - 1];
}

int logged(const char* fn, int rc) {
  if (const char* path = std::getenv("STANDIN_NVML_LOG"); path && *path)
    if (std::FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%s %d\n", fn, rc);
      std::fclose(f);
    }
  return rc;
}

struct ProcessEntry {
  unsigned pid;
  unsigned long long used;
};

// The scripted list for this call, or the code it fails with.
int process_list(const char* fn, std::vector<ProcessEntry>& out) {
  const unsigned call = g_calls++;
  const std::string rc_text = nth("STANDIN_NVML_PROCS_RC", call);
  if (const int rc = rc_text.empty() ? 0 : std::atoi(rc_text.c_str()); rc != kSuccess) return logged(fn, rc);
  const long long others = env_int("STANDIN_NVML_OTHERS", 1);
  const auto pid = static_cast<unsigned>(env_int("STANDIN_NVML_PID", 0));
  for (long long i = 0; i < others; ++i)
    out.push_back(
        {static_cast<unsigned>(900000 + i) == pid ? 1u : static_cast<unsigned>(900000 + i), 1ull << 20});
  const std::string used = nth("STANDIN_NVML_USED", call);
  if (used == "na")
    out.push_back({pid, kNotAvailable});
  else if (used != "-" && !used.empty())
    out.push_back({pid, std::strtoull(used.c_str(), nullptr, 10)});
  return kSuccess;
}

// Fills `infos` (of `*count` entries of T) the way NVML documents: too small an array gives
// INSUFFICIENT_SIZE with the count needed and the array left alone.
template <class T>
int fill_processes(const char* fn, void* device, unsigned* count, T* infos) {
  if (device != &g_device_token || !count) return logged(fn, kInvalidArgument);
  std::vector<ProcessEntry> list;
  if (const int rc = process_list(fn, list); rc != kSuccess) return rc;
  if (list.size() > *count) {
    *count = static_cast<unsigned>(list.size());
    return logged(fn, kInsufficientSize);
  }
  if (!infos && !list.empty()) return logged(fn, kInvalidArgument);
  for (std::size_t i = 0; i < list.size(); ++i) {
    T t{};
    t.pid = list[i].pid;
    t.usedGpuMemory = list[i].used;
    infos[i] = t;
  }
  *count = static_cast<unsigned>(list.size());
  return logged(fn, kSuccess);
}

struct ProcessInfoV1 {
  unsigned pid;
  unsigned long long usedGpuMemory;
};
struct ProcessInfoV2 {
  unsigned pid;
  unsigned long long usedGpuMemory;
  unsigned gpuInstanceId, computeInstanceId;
};
struct Memory {
  unsigned long long total, free, used;
};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int nvmlInit_v2() {
  return logged("nvmlInit_v2", static_cast<int>(env_int("STANDIN_NVML_INIT_RC", 0)));
}

__attribute__((visibility("default"))) const char* nvmlErrorString(int rc) {
  switch (rc) {
    case 0:
      return "Success";
    case 3:
      return "Not Supported";
    case 4:
      return "Insufficient Permissions";
    case 9:
      return "Driver Not Loaded";
    case 15:
      return "GPU is lost";
    default:
      return "Stand-in error";
  }
}

__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned* count) {
  if (!count) return kInvalidArgument;
  *count = static_cast<unsigned>(env_int("STANDIN_NVML_COUNT", 1));
  return logged("nvmlDeviceGetCount_v2", kSuccess);
}

__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (!device || index >= static_cast<unsigned>(env_int("STANDIN_NVML_COUNT", 1)))
    return logged("nvmlDeviceGetHandleByIndex_v2", kInvalidArgument);
  const int rc = static_cast<int>(env_int("STANDIN_NVML_HANDLE_RC", 0));
  if (rc == kSuccess) *device = &g_device_token;
  return logged("nvmlDeviceGetHandleByIndex_v2", rc);
}

#ifndef STANDIN_NO_MEMORY
__attribute__((visibility("default"))) int nvmlDeviceGetMemoryInfo(void* device, Memory* memory) {
  if (device != &g_device_token || !memory) return logged("nvmlDeviceGetMemoryInfo", kInvalidArgument);
  const int rc = static_cast<int>(env_int("STANDIN_NVML_MEMORY_RC", 0));
  if (rc != kSuccess) return logged("nvmlDeviceGetMemoryInfo", rc);
  memory->total = static_cast<unsigned long long>(env_int("STANDIN_NVML_TOTAL", 80LL << 30));
  memory->used = 1ull << 30;
  memory->free = memory->total - memory->used;
  return logged("nvmlDeviceGetMemoryInfo", kSuccess);
}
#endif

__attribute__((visibility("default"))) int nvmlDeviceGetName(void* device, char* name, unsigned length) {
  if (device != &g_device_token || !name || length == 0) return kInvalidArgument;
  const char* v = std::getenv("STANDIN_NVML_NAME");
  std::snprintf(name, length, "%s", v && *v ? v : "Stand-in GPU");
  return logged("nvmlDeviceGetName", kSuccess);
}

__attribute__((visibility("default"))) int nvmlDeviceGetComputeRunningProcesses(void* device, unsigned* count,
                                                                                ProcessInfoV1* infos) {
  return fill_processes("nvmlDeviceGetComputeRunningProcesses", device, count, infos);
}

#if STANDIN_PROCS_VERSION >= 2
__attribute__((visibility("default"))) int nvmlDeviceGetComputeRunningProcesses_v2(void* device,
                                                                                   unsigned* count,
                                                                                   ProcessInfoV2* infos) {
  return fill_processes("nvmlDeviceGetComputeRunningProcesses_v2", device, count, infos);
}
#endif

#if STANDIN_PROCS_VERSION >= 3
__attribute__((visibility("default"))) int nvmlDeviceGetComputeRunningProcesses_v3(void* device,
                                                                                   unsigned* count,
                                                                                   ProcessInfoV2* infos) {
  return fill_processes("nvmlDeviceGetComputeRunningProcesses_v3", device, count, infos);
}
#endif

}  // extern "C"
