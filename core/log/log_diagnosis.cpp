// diagnose_log: each message's rules (detail/diagnose_torch.h, diagnose_xla.h, diagnose_other.h), then what
// to run next for the kinds present.

#include "core/log/log_diagnosis.h"

#include "core/log/detail/diagnose_other.h"
#include "core/log/detail/diagnose_torch.h"
#include "core/log/detail/diagnose_xla.h"

namespace oomscope::log {

namespace {

bool any_of(const LogFile& log, std::initializer_list<MessageKind> kinds) {
  for (const Message& m : log.messages)
    for (MessageKind k : kinds)
      if (m.kind == k) return true;
  return false;
}

}  // namespace

LogDiagnosis diagnose_log(const LogFile& log) {
  LogDiagnosis out;
  for (std::size_t i = 0; i < log.messages.size(); ++i) {
    const Message& m = log.messages[i];
    MessageDiagnosis d;
    d.message = i;
    switch (m.kind) {
      case MessageKind::PytorchCuda:
      case MessageKind::PytorchHip:
        detail::diagnose_torch(m, d);
        break;
      case MessageKind::PytorchMps:
        detail::diagnose_mps(m, d);
        break;
      case MessageKind::PytorchMemorySummary:
        detail::diagnose_summary(m, d);
        break;
      case MessageKind::XlaGpu:
        detail::diagnose_xla_gpu(m, d);
        break;
      case MessageKind::XlaTpu:
        detail::diagnose_tpu(m, d);
        break;
      default:
        detail::diagnose_other(m, d);
        break;
    }
    out.messages.push_back(std::move(d));
  }
  using K = MessageKind;
  if (any_of(log, {K::PytorchCuda, K::PytorchHip, K::PytorchMemorySummary}))
    out.next_steps.push_back(
        "PyTorch: call torch.cuda.memory._record_memory_history(max_entries=100000) at the start of the run "
        "and "
        "torch.cuda.memory._dump_snapshot(\"oom.pickle\") in an `except torch.OutOfMemoryError` handler; "
        "then "
        "`oomscope-cli report oom.pickle` (or open it in oomscope) shows every block and the stack that "
        "allocated it.");
  if (any_of(log, {K::PytorchMps}))
    out.next_steps.push_back(
        "PyTorch on MPS: the allocator snapshot is CUDA/HIP only; torch.mps.current_allocated_memory() and "
        "torch.mps.driver_allocated_memory() printed around the failing step show what grows.");
  if (any_of(log, {K::XlaGpu, K::XlaTpu, K::XlaAllocation, K::StreamExecutor}))
    out.next_steps.push_back(
        "JAX/XLA: wrap the failing step in jax.profiler.trace(\"/tmp/trace\") (a smaller batch that still "
        "runs "
        "is enough) and run `oomscope-cli report /tmp/trace` for the plan, the buffers at the peak and their "
        "source lines; jax.profiler.save_device_memory_profile(\"mem.prof\") writes a memory profile "
        "oomscope "
        "opens too.");
  if (any_of(log, {K::Bfc, K::TensorflowOom}))
    out.next_steps.push_back(
        "TensorFlow: tf.profiler.experimental.start(\"/tmp/trace\") / stop() around the step writes an "
        ".xplane.pb capture that `oomscope-cli report /tmp/trace` reads.");
  if (any_of(log, {K::VllmKvCache}))
    out.next_steps.push_back(
        "vLLM: its start-up lines (\"Memory profiling results\", \"# GPU blocks\") give the memory split; "
        "rerun "
        "with the settings above and compare them.");
  if (any_of(log, {K::Nccl}))
    out.next_steps.push_back(
        "NCCL: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALLOC logs each of NCCL's allocations with its size.");
  return out;
}

}  // namespace oomscope::log
