#include "core/snapshot/category_rules.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/util/error.h"

namespace oomscope::snapshot {

namespace {

constexpr std::size_t kMaxFileBytes = 1 << 20;
constexpr std::size_t kMaxNameBytes = 64;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

[[noreturn]] void fail(const std::string& path, std::size_t line, const std::string& why) {
  throw Error(ErrorKind::InvalidArgument, path, "line " + std::to_string(line) + ": " + why);
}

// A built-in category by its name (any case), or Custom with the name as written.
Categorised category_named(std::string_view name, const std::string& path, std::size_t line) {
  if (name.empty()) fail(path, line, "no category name after '->'");
  if (name.size() > kMaxNameBytes)
    fail(path, line, "the category name is longer than " + std::to_string(kMaxNameBytes) + " bytes");
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      fail(path, line, "the category name holds a control character");
  const std::string l = lower(name);
  for (const EnumName<Category>& e : kCategoryNames)
    if (l == lower(e.name)) {
      if (e.value == Category::Custom)
        fail(path, line, "'custom' is reserved; give the category a name of its own");
      Categorised c;
      c.category = e.value;
      return c;
    }
  Categorised c;
  c.category = Category::Custom;
  c.name = std::string(name);
  return c;
}

CategoryRule parse_line(std::string_view text, const std::string& path, std::size_t line) {
  std::size_t sp = 0;
  while (sp < text.size() && !std::isspace(static_cast<unsigned char>(text[sp]))) ++sp;
  const std::string_view word = text.substr(0, sp);
  const auto target = parse_enum(kRuleTargetNames, lower(word));
  if (!target)
    fail(path, line,
         "'" + std::string(word) +
             "' is not a rule target; a rule is 'TARGET REGEX -> CATEGORY' with TARGET " +
             enum_choices(kRuleTargetNames));
  const std::string_view rest = text.substr(sp);
  const std::size_t arrow = rest.rfind("->");
  if (arrow == std::string_view::npos)
    fail(path, line, "no '->' before the category name (a rule is 'TARGET REGEX -> CATEGORY')");
  const std::string_view pattern = trimmed(rest.substr(0, arrow));
  if (pattern.empty()) fail(path, line, "no regular expression between the target and '->'");
  CategoryRule r;
  r.target = *target;
  r.pattern = std::string(pattern);
  r.line = line;
  try {
    r.regex = std::regex(r.pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    fail(path, line, "the regular expression /" + r.pattern + "/ does not compile: " + e.what());
  }
  r.category = category_named(trimmed(rest.substr(arrow + 2)), path, line);
  return r;
}

}  // namespace

CategoryRules CategoryRules::parse(std::string_view text, const std::string& path) {
  CategoryRules out;
  out.path_ = path;
  std::size_t line = 0;
  while (!text.empty()) {
    ++line;
    const std::size_t nl = text.find('\n');
    std::string_view l = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (l.find('\0') != std::string_view::npos) fail(path, line, "holds a NUL byte; this is not a text file");
    l = trimmed(l);
    if (l.empty() || l.front() == '#') continue;
    if (out.rules_.size() == kMaxRules)
      fail(path, line, "more than " + std::to_string(kMaxRules) + " rules; merge some into one expression");
    out.rules_.push_back(parse_line(l, path, line));
  }
  return out;
}

CategoryRules CategoryRules::read(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(ErrorKind::NotFound, path, "the category rules file does not exist");
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorKind::NotAFile, path, "the category rules file is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::PermissionDenied, path, "cannot open the category rules file for reading");
  std::string text;
  text.resize(kMaxFileBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes)
    throw Error(ErrorKind::TooLarge, path, "a category rules file is at most 1 MiB; this is larger");
  return parse(text, path);
}

bool CategoryRules::uses(RuleTarget t) const {
  return std::any_of(rules_.begin(), rules_.end(), [t](const CategoryRule& r) { return r.target == t; });
}

std::string CategoryRules::describe(const CategoryRule& r) const {
  return "user rule at " + path_ + ":" + std::to_string(r.line) + " (" +
         enum_name(kRuleTargetNames, r.target) + " ~ /" + r.pattern + "/ -> " + r.category.label() + ")";
}

}  // namespace oomscope::snapshot
