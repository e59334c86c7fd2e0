#pragma once
// A JAX device memory profile's live bytes by category, from a user's rules (category_rules.h) on its
// samples' Python frames, for `diff A.prof B.prof --categories FILE` (profile_diff.h). A profile names no
// category and oomscope's built-in rules read PyTorch stacks, so only the user's rules decide: a sample no
// rule matches is unknown. A profile carries no annotations, user_metadata or compile_context, so rules on
// those match nothing here; the notes say so.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/snapshot/category_rules.h"
#include "core/snapshot/pprof_profile.h"

namespace oomscope::snapshot {

struct ProfileCategoryReason {  // what put samples in a category, with how many of each side
  std::string why;              // the rule's description, or why no rule decided
  std::size_t a_samples = 0, b_samples = 0;
};

struct ProfileCategoryRow {
  std::string name;  // Categorised::label()
  std::int64_t a = 0, b = 0;
  std::size_t a_samples = 0, b_samples = 0;
  std::vector<ProfileCategoryReason> reasons;  // in rule order, the no-rule reason last
  std::int64_t delta() const { return b - a; }
};

struct ProfileCategories {
  std::string rules_path;
  std::vector<ProfileCategoryRow> rows;  // largest |B - A| first, then the larger side
  std::vector<std::string> notes;        // rules that cannot match a profile, one sentence each
};

// The category of one sample: the first rule in file order that matches (frame, file, function on any of
// its frames; site on site_of), else unknown. `why` gets the rule's description (or the no-rule reason).
Categorised categorise_pprof_sample(const PprofProfile& p, const PprofSample& s, const CategoryRules& rules,
                                    std::string* why);

ProfileCategories pprof_categories(const PprofProfile& a, const PprofProfile& b, const CategoryRules& rules);

}  // namespace oomscope::snapshot
