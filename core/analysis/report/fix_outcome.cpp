#include "core/analysis/report/fix_outcome.h"

#include "core/analysis/report/report.h"
#include "core/util/bytes.h"

namespace oomscope::analysis {

std::optional<FixOutcome> fix_outcome(const Fix& fix, const HostReport& report) {
  const bool with_saving = fix.needed_after_bytes && fix.saving_bytes;
  const bool checked = fix.fits_after && report.capacity_bytes;
  if (!with_saving && !checked) return std::nullopt;
  FixOutcome out;
  out.needed_bytes = fix.needed_after_bytes.value_or(0);
  out.other_phase_stays = with_saving && fix.floor_bytes;
  // Other live arrays are part of the need only where the fit was checked with them (Fix::other_live_bytes).
  if (with_saving && fix.other_live_bytes > 0 && fix.fits_after) {
    out.other_live_bytes = fix.other_live_bytes;
    out.other_live_where = fix.other_live_where;
  }
  if (checked) {
    out.fits = *fix.fits_after;
    out.against_device = fix.checked_against_device_bytes.has_value();
    out.checked_against_bytes =
        out.against_device ? *fix.checked_against_device_bytes : *report.capacity_bytes;
  }
  return out;
}

std::string FixOutcome::needs_text() const {
  std::string s = format_bytes(needed_bytes);
  if (other_phase_stays) s += " (the other phase's peak stays)";
  if (other_live_bytes > 0)
    s += " + " + format_bytes(other_live_bytes) + " of other arrays live " + other_live_where + " [measured]";
  return s;
}

std::string FixOutcome::verdict_text() const {
  if (!fits) return {};
  return *fits ? "fits" : "still does not fit";
}

std::string FixOutcome::where_text() const {
  if (!checked_against_bytes) return {};
  return std::string("in ") + (against_device ? "the device's " : "") + format_bytes(*checked_against_bytes);
}

std::string FixOutcome::text() const {
  std::string s = "then needs " + needs_text();
  if (fits) s += ": " + verdict_text() + " " + where_text();
  return s + " [derived]";
}

}  // namespace oomscope::analysis
