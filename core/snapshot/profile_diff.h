#pragma once
// The difference between two Kineto traces or two JAX device memory profiles (A the baseline, B the changed
// run), as far as each format can tell it honestly. Kineto: the peaks of the [memory] events on each
// trace's main device, the capacity and the OOM events; its events carry no stack and no category, so
// there is no site table. A JAX memory profile: one heap snapshot when it was saved (no time axis, so no
// peak), live bytes by kind and by Python line (the site table), each with its sample count. With a user's
// category rules (--categories), a JAX profile's live bytes by category too (profile_categories.h); a Kineto
// trace has nothing for rules to read, and the diff says so.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/snapshot/category_rules.h"
#include "core/snapshot/kineto.h"
#include "core/snapshot/pprof_profile.h"
#include "core/snapshot/profile_categories.h"

namespace oomscope::snapshot {

struct ProfileRow {
  std::string name;
  bool bytes = true;                 // false: a count
  std::optional<std::int64_t> a, b;  // none: the file does not carry it
};

struct ProfileSiteRow {  // live bytes at one Python line, of one kind (buffer / executable)
  std::string site, kind;
  std::int64_t a = 0, b = 0;
  std::size_t a_count = 0, b_count = 0;  // samples
  std::int64_t delta() const { return b - a; }
};

struct ProfileDiff {
  std::string format;  // "kineto" or "pprof"
  std::string path_a, path_b;
  std::string device_a, device_b;  // Kineto: the device each side's figures come from
  std::vector<ProfileRow> totals;
  std::vector<ProfileSiteRow> sites;            // pprof only: changed rows, largest |delta| first, cut to top
  std::size_t sites_total = 0;                  // changed rows before the cut
  std::vector<std::string> cannot_tell;         // what the format does not carry, one sentence each
  std::string rules_path;                       // --categories FILE; empty without rules
  std::optional<ProfileCategories> categories;  // pprof with rules
  std::string categories_note;                  // Kineto with rules: why they are not applied
};

// rules: the user's --categories (null: none; then the output is as without the option).
ProfileDiff diff_kineto(const KinetoTrace& a, const KinetoTrace& b, const CategoryRules* rules = nullptr);
ProfileDiff diff_pprof(const PprofProfile& a, const PprofProfile& b, std::size_t top = 25,
                       const CategoryRules* rules = nullptr);

void write_profile_diff_text(std::ostream& o, const ProfileDiff& d);
nlohmann::json profile_diff_json(const ProfileDiff& d);

}  // namespace oomscope::snapshot
