// Diagnosis rules that read the plan: does the step fit, which role dominates its peak, donation, remat.

#include "core/analysis/diagnosis/diagnosis_plan.h"

#include <algorithm>
#include <cstdio>

#include "core/analysis/diagnosis/detail/diagnosis_common.h"
#include "core/analysis/diagnosis/diagnosis_patterns.h"

namespace oomscope::analysis {

using detail::checked;
using detail::mib;
using detail::percent;
using detail::unit_of;

namespace {

// "at the peak", or where --at or a selection put the plan's point ("at program position 12").
std::string at_peak(const DiagnosisInput& in) {
  return in.peak_scope.empty() ? std::string("at the peak") : "at " + in.peak_scope;
}

}  // namespace

const char* dominant_role(const DiagnosisInput& in) {
  // The largest share of the whole peak, parameters and outputs included.
  const std::int64_t best =
      std::max({in.forward_kept_bytes, in.forward_transient_bytes, in.backward_bytes, in.workspace_bytes,
                in.other_bytes, in.parameter_role_bytes, in.output_role_bytes});
  if (best <= 0) return "";
  if (best == in.forward_kept_bytes) return "forward-kept";
  if (best == in.forward_transient_bytes) return "forward-transient";
  if (best == in.backward_bytes) return "backward";
  if (best == in.workspace_bytes) return "workspace";
  if (best == in.other_bytes) return "other";
  if (best == in.parameter_role_bytes) return "parameter";
  return "output";
}

std::string pool_fraction_note(const DiagnosisInput& in) {
  if (!in.capacity_bytes || !in.device_memory_bytes || *in.device_memory_bytes <= 0 || in.capacity_from_user)
    return {};
  if (in.platform == "TPU") return {};
  const double f = static_cast<double>(*in.capacity_bytes) / static_cast<double>(*in.device_memory_bytes);
  char buf[256];
  if (f > 0.745 && f < 0.755)
    std::snprintf(buf, sizeof buf,
                  "the pool is %.1f %% of the device's %s: JAX's default "
                  "XLA_PYTHON_CLIENT_MEM_FRACTION=0.75 (inferred; the capture does not record it)",
                  100.0 * f, mib(*in.device_memory_bytes).c_str());
  else
    std::snprintf(
        buf, sizeof buf,
        "the pool is %.1f %% of the device's %s: XLA_PYTHON_CLIENT_MEM_FRACTION is "
        "probably set to about %.2f (JAX's default is 0.75; inferred, the capture does not record it)",
        100.0 * f, mib(*in.device_memory_bytes).c_str(), f);
  return buf;
}

std::int64_t attention_score_bytes(const DiagnosisInput& in, int* count) {
  std::int64_t total = 0;
  int n = 0;
  for (const PeakBuffer& b : in.peak_buffers) {
    if (b.role != "forward-kept") continue;
    const auto open = b.shape.find('[');
    const auto close = b.shape.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    std::vector<long long> dims;
    for (std::size_t p = open + 1; p < close;) {
      dims.push_back(std::atoll(b.shape.c_str() + p));
      p = b.shape.find(',', p);
      if (p == std::string::npos || p > close) break;
      ++p;
    }
    if (dims.size() >= 3 && dims[dims.size() - 1] == dims[dims.size() - 2] && dims.back() >= 128) {
      total += b.bytes;
      ++n;
    }
  }
  if (count) *count = n;
  return total;
}

std::vector<DiagnosisLine> rule_plan_vs_pool(const DiagnosisInput& in) {
  std::vector<DiagnosisLine> out;
  if (!in.has_plan || !in.capacity_bytes || in.plan_peak_bytes <= 0) return out;
  const std::int64_t cap = *in.capacity_bytes;
  const std::string pool = in.capacity_from_user ? "the given pool of " + mib(cap) : "the pool's " + mib(cap);
  DiagnosisLine line;
  line.provenance = Provenance::Derived;
  const std::string needs = in.peak_scope.empty() ? " needs " : " needs, at " + in.peak_scope + ", ";
  if (in.plan_peak_bytes <= cap) {
    line.rule = "plan-fits";
    line.finding = "the plan fits: " + in.module + needs + mib(in.plan_peak_bytes) + " of " + pool + " (" +
                   percent(in.plan_peak_bytes, cap) + ")";
    line.cause =
        in.plan_peak_bytes * 10 > cap * 9
            ? in.platform == "TPU"
                  ? "a tight fit: bytes only, and the allocator also needs room for each buffer where it is "
                    "placed, so it can still fail"
                  : "a tight fit: bytes only, and the BFC allocator also needs contiguous blocks, so it can "
                    "still fail through fragmentation"
        : in.eager ? "this op alone has room; an eager program runs out through what its ops leave live "
                     "between them (see the runtime peak)"
                   : "the step alone has room; an OOM would come from what else is live (see the runtime)";
    out.push_back(std::move(line));
    return out;
  }
  line.rule = "plan-exceeds-pool";
  line.finding = unit_of(in) + " itself does not fit: " + in.module + needs + mib(in.plan_peak_bytes) +
                 " > " + pool + " (" + mib(in.plan_peak_bytes - cap) + " over)";
  line.cause = "the plan alone exceeds the pool; follow the role split " + at_peak(in) + " below";
  Fix fraction;
  if (in.platform == "TPU") {
    fraction.action = "TPU: the pool is the chip's HBM; there is no memory fraction to raise. Shard " +
                      unit_of(in) +
                      " over "
                      "more chips, or offload arrays to host memory (memory space 5)";
    fraction.saving_note = "not estimated";
    fraction.cost = "more chips, or host-device transfers";
  } else if (in.capacity_from_user) {
    fraction.action =
        "a pool of at least " + mib(in.plan_peak_bytes) + " (a higher XLA_PYTHON_CLIENT_MEM_FRACTION)";
    if (in.device_memory_bytes)
      fraction.action += ", if the device's " + mib(*in.device_memory_bytes) + " allow it";
    fraction.saving_note = "no saving: a larger pool";
    fraction.cost = "less memory left for other processes on the GPU";
    fraction.needed_after_bytes = in.plan_peak_bytes;
    if (in.device_memory_bytes) {
      fraction.fits_after = in.plan_peak_bytes <= *in.device_memory_bytes;
      fraction.checked_against_device_bytes = *in.device_memory_bytes;
    }
  } else if (in.device_memory_bytes) {
    const std::int64_t dev = *in.device_memory_bytes;
    fraction.action =
        "raise XLA_PYTHON_CLIENT_MEM_FRACTION (or XLA_PYTHON_CLIENT_PREALLOCATE=false with "
        "XLA_PYTHON_CLIENT_ALLOCATOR=platform for debugging): " +
        pool_fraction_note(in);
    fraction.saving_note = "no saving: a larger pool; the capture does not record the fraction";
    fraction.cost = "less memory left for other processes on the GPU";
    fraction.needed_after_bytes = in.plan_peak_bytes;
    fraction.fits_after = in.plan_peak_bytes <= dev && cap < dev;
    fraction.checked_against_device_bytes = dev;
    if (!*fraction.fits_after) fraction.action += " (not enough: the plan needs more than the whole device)";
  } else {
    fraction.action =
        "raise XLA_PYTHON_CLIENT_MEM_FRACTION only if the GPU has the room (the capture records "
        "neither the fraction nor, here, the device's memory)";
    fraction.saving_note = "no saving: a larger pool";
    fraction.cost = "less memory left for other processes on the GPU";
  }
  line.fixes.push_back(std::move(fraction));
  line.confirm = detail::kConfirm;
  out.push_back(std::move(line));
  for (auto rule : {rule_mostly_forward, rule_mostly_transient, rule_mostly_backward, rule_workspace,
                    rule_mostly_other, rule_mostly_parameters})
    if (auto l = rule(in)) out.push_back(std::move(*l));
  return out;
}

std::optional<DiagnosisLine> rule_mostly_other(const DiagnosisInput& in) {
  if (std::string(dominant_role(in)) != "other") return std::nullopt;
  DiagnosisLine l;
  l.rule = "mostly-other";
  l.depth = 1;
  l.finding = "mostly \"other\": " + mib(in.other_bytes) + " (" +
              percent(in.other_bytes, in.plan_peak_bytes) +
              " of the peak) in buffers made outside jvp/transpose";
  l.cause =
      "a program without autodiff, or XLA-generated ops (copies, layout changes); the op that made each "
      "buffer is in its name stack (the live-at-peak list shows it)";
  Fix f;
  f.action =
      "read the live-at-peak list: the largest buffers' shapes and source lines say which arrays they are";
  f.saving_note = "not estimated: depends on what the buffers are";
  f.cost = "-";
  l.fixes.push_back(std::move(f));
  l.confirm = detail::kConfirm;
  return l;
}

std::optional<DiagnosisLine> rule_mostly_forward(const DiagnosisInput& in) {
  if (std::string(dominant_role(in)) != "forward-kept") return std::nullopt;
  const std::int64_t fwd = in.forward_kept_bytes;
  const std::int64_t need = in.plan_peak_bytes;
  DiagnosisLine l;
  l.rule = "mostly-forward";
  l.depth = 1;
  l.finding =
      "mostly forward, kept for the backward pass: " + mib(fwd) + " (" + percent(fwd, need) + " of the peak)";
  l.cause = "activations, growing with batch x sequence; naive attention adds B*H*S*S per layer";
  std::int64_t largest = 0;
  for (const PeakBuffer& b : in.peak_buffers)
    if (b.role == "forward-kept") largest = std::max(largest, b.bytes);
  Fix remat{
      "jax.checkpoint (remat) on the repeated block",
      fwd - largest,
      "forward-kept bytes less the largest one, which is recomputed and live again during the backward pass",
      "about one extra forward pass per step",
      {},
      {}};
  l.fixes.push_back(checked(std::move(remat), in, need));
  Fix micro{"halve the micro-batch and accumulate gradients over 2 micro-steps",
            fwd / 2,
            "activations scale with the batch: half of the forward-kept bytes",
            "twice the steps per update; lower "
            "device utilisation",
            {},
            {}};
  l.fixes.push_back(checked(std::move(micro), in, need));
  int scores = 0;
  const std::int64_t ss = attention_score_bytes(in, &scores);
  Fix seq{"halve the sequence length",
          ss * 3 / 4 + (fwd - ss) / 2,
          "S*S buffers shrink 4x when S halves (" + mib(ss) + " of them " + at_peak(in) +
              "), the other activations 2x",
          "a modelling change: shorter context",
          {},
          {}};
  l.fixes.push_back(checked(std::move(seq), in, need));
  if (scores > 0) {
    Fix fused;
    fused.action = "check whether the " + std::to_string(scores) + " B*H*S*S buffers (" + mib(ss) +
                   ") leave the plan with a fused attention kernel";
    fused.saving_note = "not estimated: confirm with memory_analysis()";
    fused.cost = "a kernel change; numerics may differ slightly";
    l.fixes.push_back(std::move(fused));
  }
  l.confirm = detail::kConfirm;
  return l;
}

std::optional<DiagnosisLine> rule_mostly_backward(const DiagnosisInput& in) {
  if (std::string(dominant_role(in)) != "backward") return std::nullopt;
  const std::int64_t bwd = in.backward_bytes;
  DiagnosisLine l;
  l.rule = "mostly-backward";
  l.depth = 1;
  l.finding = "mostly backward: " + mib(bwd) + " (" + percent(bwd, in.plan_peak_bytes) + " of the peak)";
  l.cause = "gradients and their temporaries";
  Fix shard{"shard gradients and optimizer state over the devices (FSDP), or accumulate gradients",
            bwd / 2,
            "with 2 devices; (N-1)/N of the backward bytes with N",
            "communication (reduce-scatter/all-gather) "
            "per step",
            {},
            {}};
  l.fixes.push_back(checked(std::move(shard), in, in.plan_peak_bytes));
  std::int64_t f32 = 0;
  for (const PeakBuffer& b : in.peak_buffers)
    if (b.role == "backward" && b.shape.starts_with("f32[")) f32 += b.bytes;
  if (f32 > 0) {
    Fix copies{"look for f32 copies of bf16 gradients; keep them in bf16",
               f32 / 2,
               "half of the f32 backward buffers " + at_peak(in) + " (" + mib(f32) + ")",
               "lower precision of the "
               "gradient sums",
               {},
               {}};
    l.fixes.push_back(checked(std::move(copies), in, in.plan_peak_bytes));
  }
  l.confirm = detail::kConfirm;
  return l;
}

std::optional<DiagnosisLine> rule_workspace(const DiagnosisInput& in) {
  if (std::string(dominant_role(in)) != "workspace") return std::nullopt;
  DiagnosisLine l;
  l.rule = "workspace";
  l.depth = 1;
  l.finding = "mostly library workspace: " + mib(in.workspace_bytes) + " (" +
              percent(in.workspace_bytes, in.plan_peak_bytes) + " of the peak)";
  l.cause =
      "GEMM/conv library scratch (s8 outputs of custom calls); usually small, but on ROCm hipBLASLt takes "
      "64 MiB per GEMM on gfx950";
  Fix f{"limit the GEMM/conv library workspace (autotuning and workspace flags of the backend)",
        in.workspace_bytes,
        "at most all of the workspace " + at_peak(in),
        "possibly slower kernels",
        {},
        {}};
  l.fixes.push_back(checked(std::move(f), in, in.plan_peak_bytes));
  return l;
}

namespace {

// "call 3", "calls 2-5", "calls 2, 4-5": 1-based call numbers, ascending.
std::string call_list(const std::vector<std::int64_t>& calls) {
  std::string out;
  for (std::size_t i = 0; i < calls.size();) {
    std::size_t j = i;
    while (j + 1 < calls.size() && calls[j + 1] == calls[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(calls[i]) +
           (j > i ? "-" + std::to_string(calls[j]) : std::string());
    i = j + 1;
  }
  return (calls.size() == 1 ? "call " : "calls ") + out;
}

}  // namespace

std::optional<DiagnosisLine> rule_no_donation(const DiagnosisInput& in) {
  if (!in.has_plan || in.parameters_bytes <= 0) return std::nullopt;
  DiagnosisLine l;
  l.rule = "no-donation";
  l.provenance = Provenance::Derived;
  if (in.donatable_bytes <= 0) {
    if (in.gradient_matched_bytes <= 0 || in.donated_bytes > 0) return std::nullopt;
    l.rule = "donation-would-not-help";
    l.finding = "no parameter is donated, and donating would not help: the outputs shaped like the " +
                mib(in.gradient_matched_bytes) + " of parameters are their gradients";
    l.cause =
        "a gradient function's outputs are gradients, not new parameters: the update still needs the "
        "parameters, so their buffers cannot be reused for the outputs";
    return l;
  }
  if (in.donated_bytes == 0)
    l.finding = "no parameter is donated: " + mib(in.parameters_bytes) + " of parameters + " +
                mib(in.outputs_bytes) + " of outputs live at once; outputs of the same shape and type as " +
                mib(in.donatable_bytes) + " of parameters could reuse their buffers";
  else
    l.finding = mib(in.donated_bytes) + " of " + mib(in.parameters_bytes) +
                " of parameters are donated; donating "
                "the rest could save up to " +
                mib(in.donatable_bytes);
  const std::string calls = std::to_string(in.donation_calls) + (in.donation_calls == 1 ? " call" : " calls");
  if (in.donation_fate == "live at later calls") {
    // Donating would delete arrays that later calls still read: no fix.
    l.rule = "donation-inputs-reused";
    l.provenance = Provenance::Measured;
    const std::string by = call_list(in.donation_reused_by);
    l.finding += "; but the inputs are reused by " + by + "; donating would delete them";
    l.cause = "a shape match is not a replacement: at " + by +
              " the buffers live at the call's start that could "
              "be its arguments are exactly those of the call before, with no room for another array of a "
              "parameter's size, so the same arrays are passed again (measured)";
    if (in.donation_total_calls > 0)  // nothing after the last call is in the capture
      l.cause += "; call " + std::to_string(in.donation_total_calls) +
                 " is the last in the capture, and whether its inputs are used after it, the capture cannot "
                 "tell";
    return l;
  }
  l.cause = in.eager ? "each eager op allocates a new output while its inputs stay alive"
                     : "old and new parameters/optimizer state live at the same time";
  const bool dead = in.donation_fate == "dead after the call";
  if (dead)
    l.cause += "; the runtime shows buffers of those sizes freed right after each of the last " + calls +
               ", before anything else ran (measured)";
  else
    l.cause +=
        in.donation_fate == "unknown"
            ? "; the capture cannot tell whether the caller uses these arrays after the call (buffers of "
              "those sizes are not freed right after every call)"
            : "; without runtime events the capture cannot tell whether the caller uses these arrays "
              "after the call";
  const std::string hedge = dead ? "" : "if the caller does not use these arrays after the call: ";
  Fix f{
      hedge + (in.eager ? "eager ops cannot donate: wrap the ops that replace these arrays in jax.jit(..., "
                          "donate_argnums=...) so that the new arrays reuse the old ones' buffers"
                        : "donate_argnums on the arguments whose outputs replace them (parameters, optimizer "
                          "state)"),
      in.donatable_bytes,
      "parameters with an un-aliased output of the same shape and type that is not a gradient",
      "the caller can no longer use the donated arrays after the call",
      {},
      {}};
  l.fixes.push_back(checked(std::move(f), in, in.plan_peak_bytes, in.donatable_bytes));
  l.confirm = detail::kConfirm;
  return l;
}

std::optional<DiagnosisLine> rule_xla_remat(const DiagnosisInput& in) {
  if (in.remat_instructions <= 0) return std::nullopt;
  DiagnosisLine l;
  l.rule = "xla-remat";
  l.provenance = Provenance::Read;
  l.finding = "XLA already rematerialized " + std::to_string(in.remat_instructions) + " instructions";
  l.cause =
      "XLA's own rematerialization already ran against the memory limit; expect the fix to come from the "
      "program, not from XLA";
  return l;
}

}  // namespace oomscope::analysis
