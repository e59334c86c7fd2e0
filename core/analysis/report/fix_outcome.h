#pragma once
// What a fix leaves the program needing and whether that fits, in the words both the text report and the
// GUI's diagnosis page print ("then needs 305 MiB (the other phase's peak stays): fits in 400 MiB"), so that
// the two never say different things of one fix.

#include <cstdint>
#include <optional>
#include <string>

#include "core/analysis/diagnosis/diagnosis_types.h"

namespace oomscope::analysis {

struct HostReport;

struct FixOutcome {
  std::int64_t needed_bytes = 0;      // the need after the fix (derived)
  bool other_phase_stays = false;     // the other phase's peak, which the fix does not lower, bounds the need
  std::int64_t other_live_bytes = 0;  // arrays outside the plan live at a start, added to the need
  std::string other_live_where;       // which start (Fix::other_live_where)
  std::optional<bool> fits;           // nullopt: no pool to check against
  std::optional<std::int64_t> checked_against_bytes;  // the pool's capacity or the device's memory
  bool against_device = false;                        // checked against the device, not the pool

  // "305 MiB (the other phase's peak stays) + 176 MiB of other arrays live at its start [measured]"
  std::string needs_text() const;
  // "fits" / "still does not fit"; "" without a pool
  std::string verdict_text() const;
  // "in 400 MiB" / "in the device's 80.0 GiB"; "" without a pool
  std::string where_text() const;
  // "then needs ...: fits in 400 MiB [derived]"
  std::string text() const;
};

// nullopt when the report has nothing to say of the fix's outcome: no saving in bytes and no pool.
std::optional<FixOutcome> fix_outcome(const Fix& fix, const HostReport& report);

}  // namespace oomscope::analysis
