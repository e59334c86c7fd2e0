// Diagnosis of XLA's GPU buffer-assignment dumps and TPU memory reports.

#include "core/log/detail/diagnose_xla.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "core/log/detail/diagnosis_helpers.h"
#include "core/log/detail/scan.h"

namespace oomscope::log::detail {

namespace {

using analysis::Provenance;

// The role a buffer's name stack gives it, as in capture reports: "transpose(" marks the backward pass,
// "jvp(" the forward pass of a differentiated function (its results kept for the backward).
std::string role_of(const PeakBuffer& b) {
  if (contains(b.op_name, "transpose(")) return "backward (transpose)";
  if (contains(b.op_name, "jvp(")) return "forward of a differentiated function (jvp)";
  if (b.entry_parameter) return "entry parameter";
  if (b.op_name.empty()) return "no operator named";
  return "other";
}

void buffer_groups(const Message& m, MessageDiagnosis& d) {
  if (m.buffers.empty()) return;
  std::int64_t total = 0;
  std::map<std::string, std::pair<std::int64_t, int>> by_source, by_role;
  for (const PeakBuffer& b : m.buffers) {
    total += b.size.value;
    const std::string src =
        b.source_file.empty() ? "(no source line)" : b.source_file + ":" + std::to_string(b.source_line);
    by_source[src].first += b.size.value;
    ++by_source[src].second;
    by_role[role_of(b)].first += b.size.value;
    ++by_role[role_of(b)].second;
  }
  derive(d, "listed_buffers", total,
         "sum of the " + std::to_string(m.buffers.size()) + " listed buffers (read)");
  const auto describe = [](const std::map<std::string, std::pair<std::int64_t, int>>& groups) {
    std::vector<std::pair<std::string, std::pair<std::int64_t, int>>> v(groups.begin(), groups.end());
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < 4; ++i) {
      if (i) out += "; ";
      out += v[i].first + " " + bytes(v[i].second.first) + " (" + std::to_string(v[i].second.second) +
             (v[i].second.second == 1 ? " buffer)" : " buffers)");
    }
    return out;
  };
  auto l = line("peak-buffers", Provenance::Derived,
                "The " + std::to_string(m.buffers.size()) + " buffer" + (m.buffers.size() == 1 ? "" : "s") +
                    " the log lists total " + bytes(total) + (m.complete ? "" : " (the dump is partial)") +
                    ". By source line: " + describe(by_source) + ". By role: " + describe(by_role) + ".");
  d.lines.push_back(std::move(l));
}

}  // namespace

void diagnose_xla_gpu(const Message& m, MessageDiagnosis& d) {
  const auto N = value(m, "requested"), T = value(m, "total"), temp = value(m, "temp");
  d.bar.request = N.value_or(0);
  if (T) {
    auto l =
        line("buffer-assignment", Provenance::Read,
             "The module's buffers need " + read(m, "total") + " in all: parameters " +
                 read(m, "parameters") + ", outputs (maybe_live_out) " + read(m, "live_out") +
                 ", temporaries " + read(m, "temp") + "; fragmentation " + read(m, "fragmentation") + ".");
    d.lines.push_back(std::move(l));
  }
  if (N && temp) {
    const Figure* tf = m.figure("temp");
    if (std::llabs(*N - *temp) <= std::max<std::int64_t>(tf->error, 1)) {
      auto l = line("temp-block", Provenance::Derived,
                    "The failing allocation (" + std::to_string(*N) +
                        " bytes) is the module's temporary block (" + read(m, "temp") +
                        "): XLA allocates all temporaries of the step as one buffer, so the "
                        "step's intermediates did not fit.");
      l.fixes.push_back(
          fix("Lower the step's intermediates: jax.checkpoint (rematerialisation) on the large "
              "layers, a smaller batch, or splitting the step",
              std::nullopt, "a log has no per-buffer plan; a capture has (below)"));
      d.lines.push_back(std::move(l));
    }
  }
  if (N || T) {
    auto l = line(
        "xla-pool", Provenance::Derived,
        "The log does not state the device's size or XLA's pool. If this is JAX, it preallocates 75 % of "
        "the device by default, so the allocation can fail with a quarter of the device unused.");
    l.fixes.push_back(
        fix("XLA_PYTHON_CLIENT_MEM_FRACTION=.95 gives XLA's pool more of the device (JAX); "
            "XLA_PYTHON_CLIENT_PREALLOCATE=false allocates on demand",
            std::nullopt, "at most the rest of the device, which the log does not give"));
    d.lines.push_back(std::move(l));
  }
  buffer_groups(m, d);
}

void diagnose_tpu(const Message& m, MessageDiagnosis& d) {
  const std::string space = m.device.empty() ? "HBM" : m.device;
  if (m.wording == "runtime-reserve") {
    const auto R = value(m, "requested"), F = value(m, "free"), V = value(m, "reservable");
    d.bar.request = R.value_or(0);
    d.bar.free = F.value_or(0);
    d.bar.capacity = value(m, "capacity").value_or(0);
    d.bar.framework_allocated = value(m, "hbm_currently_allocated").value_or(0);
    if (R && F && V) {
      auto l =
          line("tpu-reserve", Provenance::Read,
               "The TPU runtime needed " + read(m, "requested") + " at the bottom of HBM for the program; " +
                   read(m, "free") + " was free and " + read(m, "reservable") + " of it reservable.",
               *F >= *R ? "Enough memory was free, but not in one range: live buffers split it."
                        : "Live buffers (arrays kept from earlier steps, inputs, outputs) fill HBM.");
      l.fixes.push_back(
          fix("Keep fewer device arrays alive between steps, or make the program smaller (batch)",
              std::nullopt, "the log does not list the live buffers"));
      d.lines.push_back(std::move(l));
    }
    return;
  }
  const auto used = value(m, "used"), cap = value(m, "capacity");
  d.bar.capacity = cap.value_or(0);
  d.bar.request = used.value_or(0);
  if (used && cap) {
    d.lines.push_back(line("tpu-compile", Provenance::Read,
                           "The compiled program needs " + read(m, "used") + " of " + space + ", " +
                               read(m, "capacity") + " available: " + read(m, "exceeded") +
                               " over (the compiler refused it before "
                               "running).",
                           ""));
  }
  if (space == "vmem") {
    d.lines.push_back(line(
        "tpu-vmem", Provenance::Read,
        "VMEM is the TPU core's on-chip scratch memory: one kernel's scratch (" + read(m, "program_scoped") +
            " scoped) exceeds it; this is a limit of that "
            "operation's code generation, not of the model's size in HBM.",
        "A smaller shape for that operation, or a compiler version without the spill, avoids it."));
  }
  const auto args = value(m, "usage_arguments"), prog = value(m, "usage_program");
  if (args && cap && *args > *cap) {
    auto l = line("tpu-arguments", Provenance::Derived,
                  "The program's arguments alone (" + read(m, "usage_arguments") + ") exceed " + space +
                      " (" + read(m, "capacity") +
                      "): the parameters, optimizer state and inputs placed on one chip do "
                      "not fit.");
    l.fixes.push_back(
        fix("Shard them over the chips (a mesh with pjit / shard_map, FSDP-style parameter sharding)",
            std::nullopt, "depends on the number of chips"));
    d.lines.push_back(std::move(l));
  }
  if (prog && cap && *prog > *cap) {
    auto l = line("tpu-program", Provenance::Derived,
                  "The program's own memory (" + read(m, "usage_program") + ", of which HLO temp " +
                      read(m, "program_hlo_temp") + ") exceeds " + space +
                      ": one step's intermediates do not fit.");
    l.fixes.push_back(fix("Rematerialise (jax.checkpoint) or shrink the batch or sequence length",
                          std::nullopt, "the log lists only the largest allocations"));
    d.lines.push_back(std::move(l));
  }
  const auto padded = value(m, "program_hlo_temp_padded"), unpadded = value(m, "program_hlo_temp_unpadded");
  if (padded && unpadded && *padded > *unpadded) {
    derive(d, "hlo_temp_padding", *padded - *unpadded, "HLO temp padded - unpadded (read)");
    d.lines.push_back(line("tpu-padding", Provenance::Derived,
                           "Padding to the TPU's tiles adds " + bytes(*padded - *unpadded) +
                               " to HLO temp (padded " + read(m, "program_hlo_temp_padded") + ", unpadded " +
                               read(m, "program_hlo_temp_unpadded") + ").",
                           "Dimensions that are not multiples of the tile (8 x 128 for f32) are padded."));
  }
  std::int64_t extra = 0;
  int padded_buffers = 0;
  for (const PeakBuffer& b : m.buffers)
    if (b.padding_extra) {
      extra += b.padding_extra->value;
      ++padded_buffers;
    }
  if (padded_buffers > 0) {
    derive(d, "listed_padding", extra,
           "sum of 'Extra memory due to padding' of the listed allocations (read)");
  }
  buffer_groups(m, d);
}

}  // namespace oomscope::log::detail
