#include "core/allocator/replayed_savings.h"

#include <charconv>
#include <string>
#include <string_view>

#include "core/allocator/whatif.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::allocator {

namespace {

constexpr std::string_view kAction = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";

// "device 3: ..." -> 3 (the snapshot diagnosis names each line's device so).
std::optional<std::int64_t> line_device(const std::string& finding) {
  constexpr std::string_view prefix = "device ";
  if (finding.rfind(prefix, 0) != 0) return std::nullopt;
  std::int64_t d = -1;
  const char* begin = finding.data() + prefix.size();
  const auto [end, ec] = std::from_chars(begin, finding.data() + finding.size(), d);
  if (ec != std::errc() || end == begin || *end != ':') return std::nullopt;
  return d;
}

bool has_trace(const snapshot::Snapshot& snap, std::int64_t device) {
  return device >= 0 && static_cast<std::size_t>(device) < snap.device_traces.size() &&
         !snap.device_traces[static_cast<std::size_t>(device)].empty();
}

}  // namespace

void apply_replayed_savings(const snapshot::Snapshot& snap, snapshot::SnapshotReport& report,
                            const std::stop_token& stop) {
  for (analysis::DiagnosisLine& line : report.diagnosis) {
    if (line.rule != "over-reserved") continue;
    const std::optional<std::int64_t> device = line_device(line.finding);
    if (!device || !has_trace(snap, *device)) continue;
    for (analysis::Fix& fix : line.fixes) {
      if (fix.action != kAction) continue;
      WhatIfOptions o;
      o.device = *device;
      o.settings = {"expandable_segments:True"};
      NullProgress none;
      WhatIfResult w;
      try {
        w = run_whatif(snap, o, none, stop);
      } catch (const Cancelled&) {
        throw;
      } catch (const Error& e) {  // a trace the model cannot replay: the rule of thumb stays, saying why
        fix.saving_note += "; the replay could not give the figure: " + e.message();
        continue;
      }
      const ReplayResult& rec = w.recorded.result;
      const ReplayResult& exp = w.scenarios.front().result;
      if (!w.validated()) {
        const auto& v = rec.validation;
        fix.saving_note +=
            !v || !v->checked
                ? "; the trace holds no allocation or segment event to check a replay against, "
                  "so the replay gives no figure"
                : "; the replay under the recorded settings did not reproduce the recording, so "
                  "it gives no figure";
        continue;
      }
      if (rec.first_oom || exp.first_oom) {
        fix.saving_note += "; the replay ran out of memory, so it gives no peak to compare";
        continue;
      }
      const auto saved =
          static_cast<std::int64_t>(rec.peak_reserved) - static_cast<std::int64_t>(exp.peak_reserved);
      fix.saving_bytes = saved > 0 ? saved : 0;
      fix.saving_note =
          "derived by replay: expandable_segments:True would have " +
          std::string(saved > 0   ? "lowered"
                      : saved < 0 ? "raised"
                                  : "left") +
          " the peak reserved " +
          (saved == 0 ? "at " + format_bytes(static_cast<std::int64_t>(rec.peak_reserved))
                      : "from " + format_bytes(static_cast<std::int64_t>(rec.peak_reserved)) + " to " +
                            format_bytes(static_cast<std::int64_t>(exp.peak_reserved))) +
          " (the replay under the recorded settings reproduced the recording; "
          "`oomscope-cli whatif` tries the other settings)";
    }
  }
}

}  // namespace oomscope::allocator
