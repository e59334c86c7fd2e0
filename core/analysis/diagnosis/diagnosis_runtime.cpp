// Diagnosis rules that read the runtime: growth across executions, other live arrays, AllocatorRetry.
// Also diagnose(), which runs every rule in the report's order.

#include "core/analysis/diagnosis/diagnosis_runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/analysis/diagnosis/detail/diagnosis_common.h"
#include "core/analysis/diagnosis/diagnosis_patterns.h"
#include "core/analysis/diagnosis/diagnosis_plan.h"

namespace oomscope::analysis {

using detail::checked;
using detail::mib;
using detail::unit_of;

const char* to_string(Provenance p) noexcept { return enum_name(kProvenanceNames, p, "?"); }

namespace {

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

std::string seconds(std::int64_t ps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", static_cast<double>(ps) / 1e12);
  return buf;
}

}  // namespace

std::string growth_wording(const std::vector<std::int64_t>& steps) {
  if (steps.empty()) return {};
  auto signed_bytes = [](std::int64_t v) { return (v < 0 ? "-" : "+") + mib(v < 0 ? -v : v); };
  if (std::all_of(steps.begin(), steps.end(), [&](std::int64_t d) { return d == steps.front(); }))
    return signed_bytes(steps.front()) + " per execution";
  if (steps.size() >= 2 &&
      std::all_of(steps.begin() + 1, steps.end(), [&](std::int64_t d) { return d == steps[1]; }))
    return "first call " + signed_bytes(steps.front()) + ", then " + signed_bytes(steps[1]) +
           " per execution";
  std::string s = "not consistent (steps ";
  for (std::size_t i = 0; i < steps.size() && i < 4; ++i) s += (i ? ", " : "") + signed_bytes(steps[i]);
  if (steps.size() > 4) s += ", ...";
  return s + ")";
}

std::optional<DiagnosisLine> rule_eager(const DiagnosisInput& in) {
  if (!in.eager) return std::nullopt;
  DiagnosisLine l;
  l.rule = "eager";
  l.provenance = Provenance::Derived;
  l.finding = "an eager (op-by-op) program: " + std::to_string(in.program_modules_executed) +
              " modules ran (" + std::to_string(in.program_executions) + " executions, at most " +
              std::to_string(in.program_most_executions) + " of one module) and none has a backward pass; " +
              in.module + " is one of its ops, so its plan is not the program's memory";
  if (!in.peak_shares.empty())
    l.finding += "; at the runtime peak, the most is held by the executions of " + in.peak_shares;
  l.cause =
      "every jnp call outside jax.jit is its own module with its own outputs; what is live between the ops "
      "(the runtime section) explains an OOM, and the BFC allocator rounds each request up to a chunk";
  Fix jit{
      "wrap the loop body in jax.jit: XLA then plans one temp block, fuses the ops and frees intermediates",
      std::nullopt,
      "not estimated: the fused program has no plan in this capture",
      "one compilation",
      {},
      {}};
  l.fixes.push_back(std::move(jit));
  return l;
}

std::optional<DiagnosisLine> rule_growth(const DiagnosisInput& in) {
  if (!in.growth_consistent || !in.growth_per_execution || *in.growth_per_execution <= 0) return std::nullopt;
  const std::int64_t g = *in.growth_per_execution;
  DiagnosisLine l;
  l.rule = "growth";
  l.provenance = Provenance::Measured;
  const std::string wording = growth_wording(in.growth_steps);
  l.finding = "bytes in use at the start of " + in.module + " grow over " + std::to_string(in.executions) +
              " executions: " + (wording.empty() ? "+" + mib(g) + " per execution" : wording);
  bool leak = false;
  if (in.outputs_bytes > 0) {
    const double r = static_cast<double>(g) / static_cast<double>(in.outputs_bytes);
    l.finding += "; the average " + mib(g) + " = " + ratio_text(r) + " the non-aliased outputs (" +
                 mib(in.outputs_bytes) + "; average and ratio derived)";
    leak = std::fabs(r - 1.0) <= 0.05;
  }
  const auto held = std::count_if(in.live_at_last_start.begin(), in.live_at_last_start.end(),
                                  [](const LiveHolder& h) { return h.outputs_of_module; });
  l.cause = in.eager ? (leak ? "the program keeps every call's outputs alive (a leak across calls)"
                             : "something allocated in every call outlives it")
            : leak   ? "the program keeps every step's outputs alive (a leak across steps)"
                     : "something allocated in every step outlives it";
  if (held > 0)
    l.cause +=
        "; " + std::to_string(held) + " earlier executions' outputs are still live when the last one starts";
  std::string where = "find the holder in the host events between executions";
  if (!in.host_events_between.empty()) {
    where += " (";
    bool append = false;
    for (std::size_t i = 0; i < in.host_events_between.size() && i < 3; ++i) {
      where += (i ? ", " : "") + in.host_events_between[i];
      append = append || in.host_events_between[i] == "$<unknown> append";
    }
    where += append ? "; \"$<unknown> append\" is list.append)" : ")";
  }
  Fix drop{where + "; drop the reference, reduce inside the " + (in.eager ? "jitted function" : "step") +
               " (a norm, not the tree), or jax.device_get",
           g * std::max(0, in.executions - 1),
           "what has accumulated over the executions seen",
           "none in memory; "
           "a code change where the outputs are kept",
           {},
           {}};
  l.fixes.push_back(std::move(drop));
  Fix pool;
  pool.action = "a bigger pool only delays the OOM";
  if (in.last_never_launched && in.retry_count > 0) {
    pool.saving_note = "the pool is already exhausted: the last execution did not start";
  } else if (in.capacity_bytes && in.in_use_at_last_start) {
    // The k-th execution after the last one starts with in_use + k*g live and allocates temp + outputs.
    const std::int64_t room = *in.capacity_bytes - *in.in_use_at_last_start;
    const std::int64_t step = in.temp_bytes + in.outputs_bytes;
    pool.saving_note = "at this rate " + std::to_string(std::max<std::int64_t>(room - step, 0) / g) +
                       " more executions start before the " + mib(std::max<std::int64_t>(room, 0)) +
                       " still free run out (derived)";
  } else {
    pool.saving_note = "the growth does not stop";
  }
  pool.cost = "none; not a fix";
  l.fixes.push_back(std::move(pool));
  return l;
}

std::optional<DiagnosisLine> rule_other_live_arrays(const DiagnosisInput& in) {
  if (!in.has_plan || !in.capacity_bytes || !in.in_use_at_last_start || in.live_at_last_start.empty())
    return std::nullopt;
  const std::int64_t cap = *in.capacity_bytes;
  const std::int64_t in_use = *in.in_use_at_last_start;
  const std::int64_t needed = in.temp_bytes + in.outputs_bytes;  // what one execution allocates anew
  const std::int64_t room = cap - in_use;
  const bool plan_fits = in.plan_peak_bytes <= cap;
  if (!plan_fits || needed <= room) return std::nullopt;
  // The step's own parameters are live by necessity, and its earlier outputs are the growth rule's case:
  // only what is left besides them is "other" arrays.
  std::int64_t held_outputs = 0;
  for (const LiveHolder& h : in.live_at_last_start)
    if (h.outputs_of_module) held_outputs += h.bytes;
  if (in_use - in.parameters_bytes - held_outputs <= 0) return std::nullopt;
  const LiveHolder* largest = nullptr;
  for (const LiveHolder& h : in.live_at_last_start)
    if (!h.outputs_of_module && (!largest || h.bytes > largest->bytes)) largest = &h;
  if (!largest) return std::nullopt;
  DiagnosisLine l;
  l.rule = "other-live-arrays";
  l.provenance = Provenance::Measured;
  l.finding = "other live arrays take the room: " + mib(in_use) +
              " in use when the last execution started leaves " + mib(std::max<std::int64_t>(room, 0)) +
              ", " + unit_of(in) + " allocates " + mib(needed) + " (temp + outputs); the largest came from " +
              largest->label + " (" + mib(largest->bytes) + ")";
  l.cause =
      "arrays outside " + unit_of(in) + ": a dataset or eval copy on the GPU, prefetch, other jit outputs";
  Fix f{largest->before_capture
            ? "profile earlier to name what was allocated before the capture started, then "
              "keep it on the host and stream it, free it, or shrink its dtype"
            : "keep " + largest->label + " on the host and stream it, free it, or shrink its dtype",
        largest->bytes,
        "the largest live group at the last execution's start",
        "host-device transfers when "
        "streamed; precision when the dtype shrinks",
        {},
        {}};
  Fix checked_fix = checked(std::move(f), in, in_use + needed);
  l.fixes.push_back(std::move(checked_fix));
  return l;
}

std::optional<DiagnosisLine> rule_allocator_retry(const DiagnosisInput& in) {
  if (in.retry_count <= 0 && !in.last_never_launched) return std::nullopt;
  DiagnosisLine l;
  l.rule = "allocator-retry";
  l.provenance = Provenance::Measured;
  if (in.retry_count > 0) {
    l.finding = "AllocatorRetry waited " + std::to_string(in.retry_count) +
                (in.retry_count == 1 ? " time" : " times") + ", longest " + seconds(in.retry_longest_ps);
    l.finding += in.never_launched > 0
                     ? ", " + std::to_string(in.never_launched) + " execution(s) never started"
                     : ", every execution started";
  } else {
    l.rule = "never-launched";
    l.finding = "the last execution of " + in.module + " never launched a kernel (" +
                std::to_string(in.never_launched) + " such execution(s))";
  }
  l.cause =
      "the OOM happened inside the capture; evidence only: the failing request is usually the module's temp "
      "block";
  if (in.has_plan) l.cause += " (" + mib(in.temp_bytes) + ") or an output";
  return l;
}

std::optional<DiagnosisLine> rule_runtime_peak_over_pool(const DiagnosisInput& in) {
  if (!in.capacity_bytes || !in.runtime_peak_bytes || *in.runtime_peak_bytes <= *in.capacity_bytes)
    return std::nullopt;
  DiagnosisLine l;
  l.rule = "runtime-peak-over-pool";
  l.provenance = Provenance::Read;
  l.finding = "the runtime peak, " + mib(*in.runtime_peak_bytes) + " at " +
              detail::clock_time(in.runtime_peak_time_ps) +
              (in.runtime_peak_execution.empty() ? "" : " inside " + in.runtime_peak_execution) +
              ", is more than the pool of " + mib(*in.capacity_bytes) + " (" +
              mib(*in.runtime_peak_bytes - *in.capacity_bytes) + " over)";
  if (in.runtime_peak_execution.empty()) {
    l.cause =
        "the peak falls outside every execution: what the program holds between them (the runtime section "
        "lists it by producer) does not fit, whatever a module's plan needs";
  } else {
    l.finding += "; " + mib(in.runtime_peak_at_start) +
                 " was in use when that execution started [read] and it "
                 "had allocated " +
                 mib(in.runtime_peak_own_bytes) + " itself [measured]";
    l.cause =
        "what the program keeps live between executions adds to the one running; a fix to a plan lowers only "
        "that execution's own share, so check what is live at its start (the runtime section, by producer)";
  }
  return l;
}

std::vector<DiagnosisLine> diagnose(const DiagnosisInput& in) {
  std::vector<DiagnosisLine> out;
  if (auto l = rule_eager(in)) out.push_back(std::move(*l));  // eager programs lead with the runtime
  for (DiagnosisLine& l : rule_plan_vs_pool(in)) out.push_back(std::move(l));
  if (auto l = rule_peak_phase(in)) out.push_back(std::move(*l));
  for (DiagnosisLine& l : rule_patterns(in)) out.push_back(std::move(l));
  for (auto rule :
       {rule_host_offload, rule_temp_unseen, rule_growth, rule_no_donation, rule_other_live_arrays,
        rule_runtime_peak_over_pool, rule_allocator_retry, rule_xla_remat})
    if (auto l = rule(in)) out.push_back(std::move(*l));
  if (auto l = rule_fix_sets(in, out)) out.push_back(std::move(*l));
  return out;
}

}  // namespace oomscope::analysis
