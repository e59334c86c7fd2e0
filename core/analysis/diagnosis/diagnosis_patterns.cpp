// Diagnosis rules about where the peak is and what made it: the phase of the peak and the other phase's
// own peak, forward transients, parameters dominating, the plan's memory patterns (split-K partial sums,
// a convolution output held twice, host prefetches), host offload totals, and a temp block the runtime
// never allocated.

#include "core/analysis/diagnosis/diagnosis_patterns.h"

#include <algorithm>

#include "core/analysis/diagnosis/detail/diagnosis_common.h"
#include "core/analysis/diagnosis/diagnosis_plan.h"

namespace oomscope::analysis {

using detail::checked;
using detail::clock_time;
using detail::mib;
using detail::percent;
using detail::unit_of;

namespace {

// "at the peak", or where --at or a selection put the plan's point ("at program position 12").
std::string at_peak(const DiagnosisInput& in) {
  return in.peak_scope.empty() ? std::string("at the peak") : "at " + in.peak_scope;
}

}  // namespace

std::optional<DiagnosisLine> rule_peak_phase(const DiagnosisInput& in) {
  if (!in.has_heap_peak || in.peak_phase.empty()) return std::nullopt;
  DiagnosisLine l;
  l.rule = "peak-phase";
  l.provenance = Provenance::Derived;
  if (in.peak_phase == "no backward") {
    l.finding = (in.peak_scope.empty() ? std::string("the peak") : in.peak_scope) + " (" +
                mib(in.plan_peak_bytes) + ", at " + in.peak_instruction +
                ") is in a program "
                "without a backward pass (no transpose( in its name stacks)";
    l.cause = in.eager
                  ? "a single op: there are no activations kept for a backward pass, so remat does not apply"
                  : "inference or a forward-only step: there are no activations kept for a backward pass, "
                    "so remat does not apply";
    return l;
  }
  l.finding = (in.peak_scope.empty() ? std::string("the peak") : in.peak_scope) + " (" +
              mib(in.plan_peak_bytes) + ", at " + in.peak_instruction + ") is in the " + in.peak_phase;
  if (in.other_phase_peak_bytes) {
    l.finding += "; the " + in.other_phase + " has its own peak of " + mib(*in.other_phase_peak_bytes) +
                 " at " + in.other_phase_instruction;
    l.cause = "a fix that only lowers the " + in.peak_phase + " cannot bring the need below the " +
              in.other_phase + "'s " + mib(*in.other_phase_peak_bytes) +
              "; the needs after each fix below respect it";
  } else {
    l.cause = "the program has one phase only";
  }
  return l;
}

std::optional<DiagnosisLine> rule_mostly_transient(const DiagnosisInput& in) {
  if (std::string(dominant_role(in)) != "forward-transient") return std::nullopt;
  const std::int64_t fwd = in.forward_transient_bytes;
  DiagnosisLine l;
  l.rule = "mostly-forward-transient";
  l.depth = 1;
  l.finding = "mostly forward transients: " + mib(fwd) + " (" + percent(fwd, in.plan_peak_bytes) +
              " of the peak) in forward buffers freed before the backward starts";
  l.cause =
      "temporaries of single forward ops (GEMM partial sums, fused intermediates), not activations kept "
      "for the backward: jax.checkpoint cannot remove them";
  Fix micro{"halve the micro-batch and accumulate gradients over 2 micro-steps",
            fwd / 2,
            "the transients scale with the batch: half of them",
            "twice the steps per update; lower device "
            "utilisation",
            {},
            {}};
  l.fixes.push_back(checked(std::move(micro), in, in.plan_peak_bytes));
  if (!in.patterns.empty()) l.cause += "; the pattern lines below name the ops that make them";
  l.confirm = detail::kConfirm;
  return l;
}

std::optional<DiagnosisLine> rule_mostly_parameters(const DiagnosisInput& in) {
  const std::string role = dominant_role(in);
  if (role != "parameter" && role != "output") return std::nullopt;
  const std::int64_t bytes = in.parameter_role_bytes + in.output_role_bytes;
  DiagnosisLine l;
  l.rule = "mostly-parameters";
  l.depth = 1;
  l.finding = "mostly parameters and outputs: " + mib(bytes) + " (" + percent(bytes, in.plan_peak_bytes) +
              " of the peak); the temp heap is " + mib(in.plan_peak_bytes - bytes);
  l.cause = "the inputs and results of the program themselves; temporaries are not the problem";
  const bool f32 = std::any_of(in.peak_buffers.begin(), in.peak_buffers.end(), [](const PeakBuffer& b) {
    return (b.role == "parameter" || b.role == "output") && b.shape.starts_with("f32[");
  });
  Fix shard{f32 ? "shard the parameters over the devices, or keep the f32 ones in bf16"
                : "shard the parameters over the devices",
            bytes / 2,
            f32 ? "with 2 devices, or f32 -> bf16: half of them" : "with 2 devices: half of them",
            std::string("communication per ") + (in.eager ? "call" : "step") + (f32 ? ", or precision" : ""),
            {},
            {}};
  l.fixes.push_back(checked(std::move(shard), in, in.plan_peak_bytes, bytes / 2));
  l.confirm = detail::kConfirm;
  return l;
}

std::vector<DiagnosisLine> rule_patterns(const DiagnosisInput& in) {
  std::vector<DiagnosisLine> out;
  int split_k_lines = 0;
  for (const PatternInput& p : in.patterns) {
    DiagnosisLine l;
    l.provenance = Provenance::Derived;
    const std::string where = p.source.empty() ? "" : " (" + p.source + ")";
    if (p.kind == "split-k-partials") {
      l.rule = "split-k-partials";
      l.finding = "split-K GEMM: " + p.instruction + " writes f32 partial sums " + p.shape + " (" +
                  mib(p.bytes) + ") that " + p.other_instruction + " reduces into " + p.other_shape + " (" +
                  mib(p.other_bytes) + "), " + std::to_string(p.factor) + "x its result" + where;
      l.cause = "XLA split the dot's contraction dimension into " + std::to_string(p.factor) +
                " parts and keeps every part's f32 result until the reduce; a transient of one op";
      // A module-wide flag: the split-K GEMMs at the other phase's peak lose their partials too (counted
      // once, on the first split-K line).
      const std::int64_t other = split_k_lines++ == 0 ? in.other_phase_split_k_bytes : 0;
      Fix off{
          "XLA_FLAGS=--xla_gpu_enable_split_k_autotuning=false (module-wide: every split-K GEMM then writes "
          "its "
          "result directly)",
          p.bytes,
          other > 0 ? "the partial-sum buffer " + at_peak(in) + "; the flag also removes the " + mib(other) +
                          " of split-K partials at the other phase's peak (" +
                          in.other_phase_split_k_instruction + ")"
                    : "the partial-sum buffer " + at_peak(in),
          "the GEMM may run slower (less parallelism over K), and XLA may pick a library GEMM instead: plus "
          "any "
          "library workspace (" +
              (in.gemm_workspace_bytes > 0
                   ? "up to " + mib(in.gemm_workspace_bytes) + ", the largest in this module's plan"
                   : std::string("none in this module's plan; the capture cannot tell how much")) +
              ")",
          {},
          {}};
      l.fixes.push_back(checked(std::move(off), in, in.plan_peak_bytes, other));
    } else if (p.kind == "conv-output-twice") {
      l.rule = "conv-output-twice";
      l.finding = "convolution output held twice: " + p.instruction + " writes " + p.shape + " (" +
                  mib(p.bytes) + ") and " + p.other_instruction + " copies it into " + p.other_shape + " (" +
                  mib(p.other_bytes) + ")" + where;
      l.cause =
          "the convolution's native layout differs from the one its consumer (or the output) needs, so "
          "XLA adds a transposed copy and both live at once";
      Fix layout{
          "give the convolution the layout its consumer wants (e.g. channels-last dimension_numbers in "
          "lax.conv_general_dilated), so that no copy is needed",
          std::min(p.bytes, p.other_bytes),
          "one of the two copies",
          "possibly a slower convolution "
          "algorithm for that layout",
          {},
          {}};
      if (in.platform.find("AMD") != std::string::npos) {
        // On ROCm, XLA's layout assignment, not the program, picks the convolution's layout for MIOpen.
        const std::string dtype = p.shape.substr(0, p.shape.find('['));
        const auto rank =
            std::count(p.shape.begin(), p.shape.end(), ',') + (p.shape.find("[]") == std::string::npos);
        const bool half = dtype == "f16" || dtype == "bf16";
        l.cause =
            "XLA's ROCm layout assignment gives MIOpen convolutions a channels-first layout (NCHW, NCDHW) "
            "unless told otherwise and adds the transposes around them; the program's own dimension_numbers "
            "do not change that";
        layout.action =
            "XLA_FLAGS=--xla_gpu_force_conv_nhwc (module-wide: XLA then gives every convolution the "
            "channels-last layout, so that no transposed copy is needed)";
        layout.cost =
            std::string("possibly a slower MIOpen algorithm; ") +
            (half && rank == 4
                 ? "recent XLA versions already pick channels-last for f16 on ROCm, older ones only "
                   "with TF_USE_ROCM_NHWC=1 and a GPU with NHWC support"
                 : "for a " + dtype + " " + std::to_string(rank - 2) +
                       "-D convolution, whether MIOpen runs it channels-last (and how fast) depends "
                       "on the XLA and MIOpen versions: the capture cannot tell, so confirm it");
      }
      l.fixes.push_back(checked(std::move(layout), in, in.plan_peak_bytes));
    } else {
      l.rule = "host-prefetch";
      l.finding = std::to_string(p.count) + " copy-start buffer(s) of " + p.shape + " (" + mib(p.bytes) +
                  " in all) are live " + at_peak(in) +
                  ": asynchronous copies (host prefetch) of offloaded arrays";
      l.cause =
          "arrays kept in host memory are copied into device memory ahead of use; all prefetches in flight "
          "at once sit on the device together";
      Fix fewer{
          "prefetch fewer arrays at once (stream them layer by layer), or keep fewer arrays offloaded "
          "at this point",
          std::nullopt,
          "not estimated: depends on the schedule",
          "less overlap of "
          "copies and compute",
          {},
          {}};
      l.fixes.push_back(std::move(fewer));
    }
    l.confirm = detail::kConfirm;
    out.push_back(std::move(l));
  }
  return out;
}

std::optional<DiagnosisLine> rule_host_offload(const DiagnosisInput& in) {
  const std::int64_t total = in.host_parameters_bytes + in.host_outputs_bytes + in.host_temp_bytes;
  if (total <= 0) return std::nullopt;
  DiagnosisLine l;
  l.rule = "host-offload";
  l.provenance = Provenance::Read;
  l.finding = "host offload (memory space 5): " + mib(total) + " kept in host memory";
  if (in.host_parameters_bytes > 0)
    l.finding += ", " + std::to_string(in.host_parameter_count) + " parameter(s) of " +
                 mib(in.host_parameters_bytes) +
                 (in.host_parameters_aliased_bytes == in.host_parameters_bytes ? " aliased with outputs"
                  : in.host_parameters_aliased_bytes > 0
                      ? " (" + mib(in.host_parameters_aliased_bytes) + " aliased with outputs)"
                      : "");
  if (in.host_outputs_bytes > 0) l.finding += ", outputs " + mib(in.host_outputs_bytes);
  if (in.host_temp_bytes > 0) l.finding += ", temp " + mib(in.host_temp_bytes);
  l.cause =
      "these bytes are not in the device figures above (memory space 0); they cost device memory only "
      "while a copy of them is on the device";
  return l;
}

std::optional<DiagnosisLine> rule_temp_unseen(const DiagnosisInput& in) {
  if (!in.has_plan || in.temp_bytes <= 0 || in.executions <= 0 || !in.temp_block_seen || *in.temp_block_seen)
    return std::nullopt;
  DiagnosisLine l;
  l.rule = "temp-unseen";
  l.provenance = Provenance::Measured;
  l.finding = "no allocator event of the capture allocates " + in.module + "'s " + mib(in.temp_bytes) +
              " temp block, although it ran " + std::to_string(in.executions) + " time(s)";
  // What the capture does show of memory held outside the allocation events: the allocator's
  // bytes_reserved stat above any one allocation.
  std::string shows;
  if (in.reserved_peak_bytes > in.largest_allocation_bytes)
    shows = "; what it does show: " + in.reserved_allocator + "'s bytes_reserved stat reaches " +
            mib(in.reserved_peak_bytes) + " at " + clock_time(in.reserved_peak_time_ps) +
            ", more than any allocation event asks for (the largest is " + mib(in.largest_allocation_bytes) +
            ")";
  l.cause = in.platform == "TPU"
                ? "the capture cannot show where it came from" + shows +
                      ". The TPU runtime may reserve program scratch outside the allocator events it records "
                      "(then the runtime figures do not include it), or it was allocated before the capture "
                      "started"
                : "the temp block came from an allocator that records no events (or it was "
                  "allocated before the capture started)" +
                      shows;
  return l;
}

std::optional<DiagnosisLine> rule_fix_sets(const DiagnosisInput& in,
                                           const std::vector<DiagnosisLine>& lines) {
  if (!in.has_plan || !in.capacity_bytes || in.plan_peak_bytes <= *in.capacity_bytes) return std::nullopt;
  struct Candidate {
    const Fix* fix;
    std::string rule;
  };
  std::vector<Candidate> candidates;
  for (const DiagnosisLine& l : lines) {
    const Fix* best = nullptr;
    for (const Fix& f : l.fixes)
      if (f.saving_bytes && *f.saving_bytes > 0 && (!best || *f.saving_bytes > *best->saving_bytes))
        best = &f;
    if (best) candidates.push_back({best, l.rule});
  }
  if (candidates.empty()) return std::nullopt;
  DiagnosisLine l;
  l.rule = "fix-sets";
  l.provenance = Provenance::Derived;
  // Greedy: add the fix that lowers the need most (the larger saving on a tie); stop when it fits or when
  // no fix lowers it any more (the peak no remaining fix touches decides).
  std::int64_t peak = in.plan_peak_bytes, other = in.other_phase_peak_bytes.value_or(0);
  std::int64_t need = std::max(peak, other);
  std::string sets, names;
  bool fits = false;
  std::vector<bool> used(candidates.size(), false);
  for (std::size_t step = 0; step < candidates.size() && !fits; ++step) {
    std::optional<std::size_t> best;
    std::int64_t best_need = need;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (used[i]) continue;
      const std::int64_t n = std::max(peak - *candidates[i].fix->saving_bytes,
                                      other - candidates[i].fix->other_phase_saving_bytes);
      if (n < best_need || (best && n == best_need &&
                            *candidates[i].fix->saving_bytes > *candidates[*best].fix->saving_bytes)) {
        best = i;
        best_need = n;
      }
    }
    if (!best) break;
    used[*best] = true;
    peak -= *candidates[*best].fix->saving_bytes;
    other -= candidates[*best].fix->other_phase_saving_bytes;
    need = best_need;
    names += (step ? " + " : "") + candidates[*best].rule;
    fits = need + in.other_live_at_start <= *in.capacity_bytes;
    sets += (step ? "; " : "") + names + " -> needs " + mib(need) + (fits ? " (fits)" : "");
  }
  if (sets.empty()) return std::nullopt;
  if (in.other_live_at_start > 0)
    sets += "; besides the plan, " + mib(in.other_live_at_start) + " of other arrays was live " +
            detail::other_live_where(in, true) + " (measured), counted in each fit";
  l.finding =
      fits ? "fixes that together make " + unit_of(in) + " fit " + mib(*in.capacity_bytes) + ": " + sets
           : "no set of the fixes above makes " + unit_of(in) + " fit " + mib(*in.capacity_bytes) + ": " +
                 sets;
  l.cause =
      "the best fix of each line, the one that lowers the need most first; savings are assumed to add up "
      "(fixes of the same "
      "buffers overlap, so treat each need as a lower bound) and each phase's peak falls only by what a fix "
      "removes from it";
  l.confirm = detail::kConfirm;
  return l;
}

}  // namespace oomscope::analysis
