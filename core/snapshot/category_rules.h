#pragma once
// A user's category rules: a small text file of regular expressions on an allocation's frames, its site,
// the annotations open when it was made or its trace entry's user_metadata / compile_context, each naming
// a category (built-in or the user's own). The format, its targets and its errors are in
// docs/categories.md. Rules are tried in file order before the built-in rules; the first that matches wins.

#include <cstddef>
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot/categories.h"

namespace oomscope::snapshot {

enum class RuleTarget : std::uint8_t { Frame, File, Function, Site, Annotation, Metadata, CompileContext };
inline constexpr EnumName<RuleTarget> kRuleTargetNames[] = {{RuleTarget::Frame, "frame"},
                                                            {RuleTarget::File, "file"},
                                                            {RuleTarget::Function, "function"},
                                                            {RuleTarget::Site, "site"},
                                                            {RuleTarget::Annotation, "annotation"},
                                                            {RuleTarget::Metadata, "metadata"},
                                                            {RuleTarget::CompileContext, "compile_context"}};
static_assert(names_every_value(kRuleTargetNames, RuleTarget::CompileContext));

struct CategoryRule {
  RuleTarget target = RuleTarget::Frame;
  std::string pattern;   // as written
  std::regex regex;      // ECMAScript, searched (not anchored unless the pattern says ^...$)
  Categorised category;  // category and name; rule is filled when it matches
  std::size_t line = 0;  // 1-based line in the file
};

class CategoryRules {
 public:
  static constexpr std::size_t kMaxRules = 64;

  CategoryRules() = default;
  // Reads and checks a rules file; throws oomscope::Error naming the file and the line of the problem.
  static CategoryRules read(const std::string& path);
  // The same from text already read (`path` names it in errors and in each rule's "why").
  static CategoryRules parse(std::string_view text, const std::string& path);

  const std::string& path() const { return path_; }
  const std::vector<CategoryRule>& rules() const { return rules_; }
  bool empty() const { return rules_.empty(); }
  // Does any rule look at annotations / sites (so the categoriser computes them only when needed)?
  bool uses(RuleTarget t) const;
  // "rule 3 of team.rules (line 7): frame ~ /megatron/ -> communication".
  std::string describe(const CategoryRule& r) const;

 private:
  std::string path_;
  std::vector<CategoryRule> rules_;
};

}  // namespace oomscope::snapshot
