#include "core/snapshot/profile_categories.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace oomscope::snapshot {

namespace {

constexpr const char* kNoRule =
    "no user rule matched (the built-in rules read PyTorch stacks, not a JAX profile's): unknown";

bool frame_matches(const CategoryRule& r, const PprofFrame& f) {
  switch (r.target) {
    case RuleTarget::Frame:
      return std::regex_search(f.filename + ":" + std::to_string(f.line) + " in " + f.function, r.regex);
    case RuleTarget::File:
      return std::regex_search(f.filename, r.regex);
    case RuleTarget::Function:
      return std::regex_search(f.function, r.regex);
    default:
      return false;
  }
}

bool rule_matches(const CategoryRule& r, const PprofProfile& p, const PprofSample& s) {
  switch (r.target) {
    case RuleTarget::Frame:
    case RuleTarget::File:
    case RuleTarget::Function:
      return std::any_of(s.stack.begin(), s.stack.end(), [&](std::uint32_t id) {
        return id < p.frames.size() && frame_matches(r, p.frames[id]);
      });
    case RuleTarget::Site:
      return std::regex_search(p.site_of(s), r.regex);
    default:  // annotation, metadata, compile_context: a profile carries none
      return false;
  }
}

}  // namespace

Categorised categorise_pprof_sample(const PprofProfile& p, const PprofSample& s, const CategoryRules& rules,
                                    std::string* why) {
  for (const CategoryRule& r : rules.rules())
    if (rule_matches(r, p, s)) {
      *why = rules.describe(r);
      return r.category;
    }
  *why = kNoRule;
  return Categorised{};
}

ProfileCategories pprof_categories(const PprofProfile& a, const PprofProfile& b, const CategoryRules& rules) {
  ProfileCategories out;
  out.rules_path = rules.path();
  std::map<std::string, ProfileCategoryRow> rows;
  std::map<std::string, std::map<std::string, ProfileCategoryReason>> reasons;  // by category, then why
  const auto add = [&](const PprofProfile& p, bool side_a) {
    for (const PprofSample& s : p.samples) {
      std::string why;
      const Categorised c = categorise_pprof_sample(p, s, rules, &why);
      ProfileCategoryRow& row = rows[c.label()];
      row.name = c.label();
      ProfileCategoryReason& reason = reasons[c.label()][why];
      reason.why = why;
      (side_a ? row.a : row.b) += p.bytes_of(s);
      ++(side_a ? row.a_samples : row.b_samples);
      ++(side_a ? reason.a_samples : reason.b_samples);
    }
  };
  add(a, true);
  add(b, false);
  // Reasons in rule order (a rule's description starts with its line), the no-rule reason last.
  std::map<std::string, std::size_t> rule_order;
  for (std::size_t i = 0; i < rules.rules().size(); ++i) rule_order[rules.describe(rules.rules()[i])] = i;
  for (auto& [name, row] : rows) {
    for (auto& [why, r] : reasons[name]) row.reasons.push_back(std::move(r));
    std::stable_sort(row.reasons.begin(), row.reasons.end(),
                     [&](const ProfileCategoryReason& x, const ProfileCategoryReason& y) {
                       const auto ix = rule_order.find(x.why), iy = rule_order.find(y.why);
                       const std::size_t kx = ix == rule_order.end() ? rule_order.size() : ix->second;
                       const std::size_t ky = iy == rule_order.end() ? rule_order.size() : iy->second;
                       return kx < ky;
                     });
    out.rows.push_back(std::move(row));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const ProfileCategoryRow& x, const ProfileCategoryRow& y) {
                     if (std::llabs(x.delta()) != std::llabs(y.delta()))
                       return std::llabs(x.delta()) > std::llabs(y.delta());
                     return std::max(x.a, x.b) > std::max(y.a, y.b);
                   });
  for (const RuleTarget t : {RuleTarget::Annotation, RuleTarget::Metadata, RuleTarget::CompileContext})
    if (rules.uses(t))
      out.notes.push_back(std::string("the rules on ") + enum_name(kRuleTargetNames, t) +
                          " match nothing here: a JAX memory profile carries no annotations, user_metadata "
                          "or compile_context");
  return out;
}

}  // namespace oomscope::snapshot
