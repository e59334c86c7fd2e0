// diagnose_log: each message's rules (detail/diagnose.h), then what to run next for the kinds present.

#include "core/log/log_diagnosis.h"

#include <cstdio>

#include "core/log/detail/diagnose.h"
#include "core/util/bytes.h"

namespace oomscope::log {

namespace detail {

std::optional<std::int64_t> value(const Message& m, std::string_view key) {
  const Figure* f = m.figure(key);
  if (!f) return std::nullopt;
  return f->value;
}

std::string read(const Message& m, std::string_view key) {
  const Figure* f = m.figure(key);
  return f ? f->printed : std::string("(not in the log)");
}

std::string bytes(std::int64_t v) { return format_bytes(v); }

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * fraction);
  return buf;
}

analysis::DiagnosisLine line(std::string rule, analysis::Provenance p, std::string finding,
                             std::string cause) {
  analysis::DiagnosisLine l;
  l.rule = std::move(rule);
  l.provenance = p;
  l.finding = std::move(finding);
  l.cause = std::move(cause);
  return l;
}

analysis::Fix fix(std::string action, std::optional<std::int64_t> saving, std::string note,
                  std::string cost) {
  analysis::Fix f;
  f.action = std::move(action);
  f.saving_bytes = saving;
  f.saving_note = std::move(note);
  f.cost = std::move(cost);
  return f;
}

void derive(MessageDiagnosis& d, std::string key, std::int64_t v, std::string how) {
  d.derived.push_back(DerivedFigure{std::move(key), v, std::move(how)});
}

}  // namespace detail

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
