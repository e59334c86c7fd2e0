// Diagnosis of PyTorch's allocator messages (CUDA, HIP, MPS) and memory_summary tables.

#include "core/log/detail/diagnose_torch.h"

#include <algorithm>

#include "core/log/detail/diagnosis_helpers.h"

namespace oomscope::log::detail {

namespace {

using analysis::Provenance;

constexpr std::int64_t kMiB = 1 << 20;

std::string conf_var(const Message& m) {
  return m.kind == MessageKind::PytorchHip ? "PYTORCH_HIP_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
}

}  // namespace

void diagnose_torch(const Message& m, MessageDiagnosis& d) {
  const auto R = value(m, "requested"), C = value(m, "capacity"), F = value(m, "free"),
             A = value(m, "allocated");
  const auto P = value(m, "process_in_use"), L = value(m, "allowed"), G = value(m, "private_pools");
  std::optional<std::int64_t> reserved = value(m, "reserved"), U = value(m, "reserved_unallocated");
  const std::string dev = m.device.empty() ? "the device" : m.device;
  if (reserved && A && !U && *reserved >= *A) {
    U = *reserved - *A;
    derive(d, "reserved_unallocated", *U, "reserved - allocated (read)");
  }
  if (U && A && !reserved) {
    reserved = *A + *U;
    derive(d, "reserved", *reserved, "allocated + reserved but unallocated (read)");
  }
  std::optional<std::int64_t> others, outside, in_process;
  if (C && F && P && *C - *F - *P >= 0) {
    others = *C - *F - *P;
    derive(d, "other_processes", *others, "capacity - free - this process (read)");
  }
  if (P && reserved && *P >= *reserved) {
    in_process = *P - *reserved;
    derive(d, "process_outside_pytorch", *in_process, "this process - reserved by PyTorch");
  }
  if (!P && C && F && reserved && *C - *F - *reserved >= 0) {
    outside = *C - *F - *reserved;
    derive(d, "outside_pytorch", *outside, "capacity - free - reserved by PyTorch (read)");
  }
  DeviceBar& bar = d.bar;
  bar.capacity = C.value_or(0);
  bar.framework_allocated = A.value_or(0);
  bar.reserved_unused = U.value_or(0);
  bar.process_other = in_process.value_or(0);
  bar.other_processes = others.value_or(0);
  bar.outside_framework = outside.value_or(0);
  bar.free = F.value_or(0);
  bar.request = R.value_or(0);

  const bool too_big = R && C && *R > *C;
  if (too_big) {
    const double times = static_cast<double>(*R) / static_cast<double>(*C);
    auto l = line("request-exceeds-device", Provenance::Derived,
                  "The request alone, " + read(m, "requested") + ", is larger than all of " + dev + " (" +
                      read(m, "capacity") + " total capacity): no allocator setting can make it fit.",
                  times >= 8 ? "A request " + std::to_string(static_cast<long long>(times)) +
                                   " times the device's memory is almost always a bug (a wrong shape, a "
                                   "broadcast, a count used as a size), not a memory problem."
                             : "The tensor's shape (batch size, resolution, sequence length) asks for more "
                               "memory than the device has.");
    l.fixes.push_back(
        fix("Find the operation in the traceback and check the shape of the tensor it allocates; "
            "shrink the batch, resolution or sequence length that sets it",
            std::nullopt, "the log does not say what else the step needs"));
    d.lines.push_back(std::move(l));
  }
  const std::optional<std::int64_t> counted = A ? A : reserved;
  const bool beyond_device = counted && C && *counted > *C;
  if (beyond_device) {
    d.lines.push_back(
        line("allocated-exceeds-device", Provenance::Derived,
             "PyTorch counts " + read(m, A ? "allocated" : "reserved") + " " +
                 (A ? "already allocated" : "reserved") + ", more than " + dev + "'s " + read(m, "capacity") +
                 " total capacity.",
             "Memory beyond the device's own: CUDA managed/unified memory, or an allocator whose "
             "counters cover more than this device; the log cannot tell which, so its other figures are not "
             "checked against the device here."));
  }
  if (L && C && *L < *C) {
    auto l = line("memory-fraction-cap", Provenance::Derived,
                  "Only " + read(m, "allowed") + " of " + dev + "'s " + read(m, "capacity") +
                      " is allowed to this process: a per-process memory-fraction cap "
                      "(torch.cuda.set_per_process_memory_fraction).");
    if (reserved && R)
      l.cause = "PyTorch's reserved memory (" + bytes(*reserved) + ") plus the request (" +
                read(m, "requested") + ") is " + bytes(*reserved + *R) +
                (*reserved + *R > *L ? ", over the cap." : ".");
    l.fixes.push_back(fix("Raise or remove the cap (set_per_process_memory_fraction)", std::nullopt,
                          "it gives room, not a saving: the device has " + read(m, "free") + " free"));
    d.lines.push_back(std::move(l));
  }
  if (!too_big && !beyond_device && R && F && U && *F < *R) {
    const bool newer = m.wording == "total-capacity";
    if (*U >= *R || *U + *F >= *R) {
      auto l = line("fragmentation", Provenance::Derived,
                    "PyTorch holds " + bytes(*U) + " reserved but unallocated" +
                        (*U >= *R ? ", more than the " + read(m, "requested") + " requested,"
                                  : "; with the " + read(m, "free") + " free that would cover the " +
                                        read(m, "requested") + " requested,") +
                        " yet no cached block was large enough: the cache is fragmented.",
                    "Freed tensors leave blocks of many sizes; a large request needs one contiguous block.");
      l.fixes.push_back(fix(newer ? conf_var(m) + "=expandable_segments:True (segments grow in place instead "
                                                  "of being split)"
                                  : conf_var(m) + "=max_split_size_mb:128 (on torch >= 2.1: "
                                                  "expandable_segments:True)",
                            U, "at most the reserved-but-unallocated memory (derived)"));
      d.lines.push_back(std::move(l));
    } else {
      auto l = line("device-full", Provenance::Derived,
                    dev + " is full: " + read(m, "free") + " free for a request of " + read(m, "requested") +
                        ", and PyTorch's cache has only " + bytes(*U) +
                        " unused; the rest is held by live tensors (" +
                        (A ? read(m, "allocated") + " allocated" : "the allocated memory") +
                        ") and by memory outside PyTorch's allocator.");
      l.fixes.push_back(
          fix("Keep less alive in the failing step: a smaller batch, activation checkpointing "
              "(torch.utils.checkpoint), mixed precision (torch.autocast)",
              std::nullopt, "a log has no breakdown of the allocated memory; a snapshot has"));
      d.lines.push_back(std::move(l));
    }
  }
  if (!beyond_device && others && R && F && *others > 0 &&
      (*others + *F >= *R || *others * 20 >= bar.capacity)) {
    auto l = line("other-processes", Provenance::Derived,
                  "Other processes hold " + bytes(*others) + " of " + dev +
                      " (capacity - free - this process's " + read(m, "process_in_use") + ").");
    analysis::Fix f =
        fix("Stop them or move this run to a free device (nvidia-smi or rocm-smi lists them; "
            "CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES choose the device)",
            others, "the memory they hold (derived)");
    f.fits_after = *others + *F >= *R;
    l.fixes.push_back(std::move(f));
    d.lines.push_back(std::move(l));
  }
  if (!beyond_device && outside && R && F && (*outside + *F >= *R || *outside * 10 >= bar.capacity) &&
      *outside >= 256 * kMiB) {
    auto l =
        line("outside-pytorch", Provenance::Derived,
             bytes(*outside) + " of " + dev +
                 " is used outside PyTorch's allocator (capacity - free - reserved): this process's CUDA "
                 "context and libraries, and any other process on the device; the log does not split them.");
    l.confirm = "nvidia-smi (or rocm-smi) shows the processes on the device and their memory";
    d.lines.push_back(std::move(l));
  }
  if (in_process && bar.capacity > 0 && *in_process * 10 >= bar.capacity) {
    d.lines.push_back(
        line("process-outside-pytorch", Provenance::Derived,
             "This process uses " + bytes(*in_process) +
                 " outside PyTorch's allocator (this process - reserved by PyTorch): CUDA context, "
                 "libraries and memory allocated without PyTorch (CuPy, TensorRT, NCCL buffers)."));
  }
  if (G && *G > 0) {
    d.lines.push_back(line("private-pools", Provenance::Read,
                           read(m, "private_pools") +
                               " of the allocated memory is in private pools (CUDA/HIP graphs), kept for the "
                               "graphs while they exist."));
  }
}

void diagnose_mps(const Message& m, MessageDiagnosis& d) {
  const auto R = value(m, "requested"), A = value(m, "mps_allocated"), O = value(m, "other_allocations"),
             M = value(m, "max_allowed");
  d.bar.capacity = M.value_or(0);
  d.bar.capacity_name = "max allowed";
  d.bar.framework_allocated = A.value_or(0);
  d.bar.process_other = O.value_or(0);
  d.bar.request = R.value_or(0);
  if (A && O && M) {
    const std::int64_t headroom = *M - *A - *O;
    derive(d, "headroom", headroom, "max allowed - MPS allocated - other allocations (read)");
    d.bar.free = std::max<std::int64_t>(headroom, 0);
  }
  if (R && M && *R > *M) {
    d.lines.push_back(line("request-exceeds-limit", Provenance::Derived,
                           "The request alone, " + read(m, "requested") +
                               ", is larger than the MPS limit of " + read(m, "max_allowed") + ".",
                           "The tensor's shape asks for more than the process may use."));
  } else if (R && A && O && M) {
    auto l = line(
        "mps-limit", Provenance::Derived,
        read(m, "mps_allocated") + " allocated by PyTorch's MPS allocator + " + read(m, "other_allocations") +
            " other allocations + the " + read(m, "requested") + " requested add up to " +
            bytes(*A + *O + *R) + " (from rounded figures); the allocator found that over its limit of " +
            read(m, "max_allowed") + ".",
        "The limit is the high watermark (PYTORCH_MPS_HIGH_WATERMARK_RATIO times the GPU's recommended "
        "working set); it stops the process before the unified memory is exhausted.");
    l.fixes.push_back(
        fix("PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 removes the limit; as the message warns, the "
            "system may then swap or fail",
            std::nullopt, "no saving: it lets the process use more", "risk of a system-wide stall"));
    l.fixes.push_back(fix("Keep less alive in the failing step (smaller batch or resolution, float16)",
                          std::nullopt, "the log has no breakdown of the allocated memory"));
    d.lines.push_back(std::move(l));
  }
  if (O && M && *O * 5 >= *M) {
    d.lines.push_back(line("mps-other-allocations", Provenance::Read,
                           read(m, "other_allocations") +
                               " of this process's Metal memory was not allocated by PyTorch's MPS allocator "
                               "(the device's allocated size minus the allocator's own heaps)."));
  }
}

void diagnose_summary(const Message& m, MessageDiagnosis& d) {
  const auto ooms = value(m, "ooms"), retries = value(m, "alloc_retries");
  const auto alloc = value(m, "allocated_current"), reserved = value(m, "reserved_current");
  d.bar.framework_allocated = alloc.value_or(0);
  if (alloc && reserved && *reserved >= *alloc) {
    derive(d, "reserved_unallocated", *reserved - *alloc,
           "GPU reserved - allocated, current (read, floored)");
    d.bar.reserved_unused = *reserved - *alloc;
  }
  if (ooms)
    d.lines.push_back(line("summary-ooms", Provenance::Read,
                           "The allocator counted " + std::to_string(*ooms) + " out-of-memory error" +
                               (*ooms == 1 ? "" : "s") + " and " + std::to_string(retries.value_or(0)) +
                               " cudaMalloc retr" + (retries.value_or(0) == 1 ? "y" : "ies") +
                               " (each retry freed the cache and asked the driver again).",
                           ""));
}

}  // namespace oomscope::log::detail
