#include "core/snapshot/categoriser.h"

#include <bit>
#include <limits>
#include <map>

namespace oomscope::snapshot {

namespace {

std::string frame_text(const Frame& f) { return f.filename + ":" + std::to_string(f.line) + " in " + f.name; }

bool matches(const CategoryRule& r, const Frame& f) {
  switch (r.target) {
    case RuleTarget::Frame:
      return std::regex_search(frame_text(f), r.regex);
    case RuleTarget::File:
      return std::regex_search(f.filename, r.regex);
    case RuleTarget::Function:
      return std::regex_search(f.name, r.regex);
    default:
      return false;
  }
}

constexpr const char* kOptimizerStep = "Optimizer.step#";

std::string lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// The first line of a metadata text, cut to 120 bytes, for a reason.
std::string quoted(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > 120) line = line.substr(0, 120) + "...";
  return "'" + line + "'";
}

}  // namespace

Categoriser::Categoriser(const Snapshot& snap, const CategoryRules* rules)
    : snap_(snap), rules_(rules && !rules->empty() ? rules : nullptr), traits_(frame_traits(snap)) {
  if (rules_) {
    frame_rule_bits_.assign(snap.frames.size(), 0);
    const auto& rs = rules_->rules();
    for (std::size_t i = 0; i < snap.frames.size(); ++i)
      for (std::size_t r = 0; r < rs.size(); ++r)
        if (matches(rs[r], snap.frames[i])) frame_rule_bits_[i] |= std::uint64_t{1} << r;
  }
  // Pair each START with the next END of the same name on the same device; one never closed stays open.
  std::map<std::pair<std::int64_t, std::string>, std::vector<std::size_t>> open;
  for (const Annotation& a : snap.annotations) {
    if (a.time_us < 0) continue;
    const auto key = std::pair(a.device, a.name);
    if (a.stage == "START") {
      open[key].push_back(windows_.size());
      Window w{a.name, a.device, a.time_us, std::numeric_limits<std::int64_t>::max(), Stage::None};
      const std::string l = lowered(a.name);
      if (a.name.starts_with(kOptimizerStep))
        w.stage = Stage::OptimizerStep;
      else if (l.find("backward") != std::string::npos)
        w.stage = Stage::Backward;
      else if (l.find("forward") != std::string::npos)
        w.stage = Stage::Forward;
      windows_.push_back(std::move(w));
    } else if (a.stage == "END") {
      auto it = open.find(key);
      if (it == open.end() || it->second.empty()) continue;
      windows_[it->second.back()].end_us = a.time_us;
      it->second.pop_back();
    }
  }
}

const Categoriser::Window* Categoriser::stage_window(std::int64_t time_us, std::int64_t device) const {
  const Window* best = nullptr;
  for (const Window& w : windows_)
    if (w.stage != Stage::None && w.device == device && w.start_us <= time_us && time_us <= w.end_us &&
        (!best || w.start_us > best->start_us))
      best = &w;
  return best;
}

const Categorised* Categoriser::user_rule(FramesId frames, std::int64_t time_us, std::int64_t device,
                                          std::int64_t alloc_index, std::string* why) const {
  const auto& rs = rules_->rules();
  const auto& ids = snap_.frames_of(frames);
  std::uint64_t bits = 0;
  for (std::uint32_t id : ids)
    if (id < frame_rule_bits_.size()) bits |= frame_rule_bits_[id];
  std::string site;
  if (rules_->uses(RuleTarget::Site)) {
    site = user_frame(snap_, frames);
    if (site.empty()) site = "(no stack)";
  }
  const EntryExtra* extra = snap_.extra_of(device, alloc_index);
  const std::string& metadata = snap_.text(extra ? extra->user_metadata : 0);
  const std::string& compiled = snap_.text(extra ? extra->compile_context : 0);
  for (std::size_t r = 0; r < rs.size(); ++r) {
    // An empty text (none recorded) matches nothing, not even an expression that matches "".
    if (rs[r].target == RuleTarget::Metadata && !metadata.empty() && std::regex_search(metadata, rs[r].regex))
      bits |= std::uint64_t{1} << r;
    if (rs[r].target == RuleTarget::CompileContext && !compiled.empty() &&
        std::regex_search(compiled, rs[r].regex))
      bits |= std::uint64_t{1} << r;
    if (rs[r].target == RuleTarget::Site && std::regex_search(site, rs[r].regex))
      bits |= std::uint64_t{1} << r;
    if (rs[r].target == RuleTarget::Annotation && time_us >= 0)
      for (const Window& w : windows_)
        if (w.device == device && w.start_us <= time_us && time_us <= w.end_us &&
            std::regex_search(w.name, rs[r].regex)) {
          bits |= std::uint64_t{1} << r;
          break;
        }
  }
  if (!bits) return nullptr;
  const CategoryRule& rule = rs[static_cast<std::size_t>(std::countr_zero(bits))];
  *why = rules_->describe(rule);
  switch (rule.target) {
    case RuleTarget::Site:
      *why += " matched the site " + site;
      break;
    case RuleTarget::Annotation:
      *why += " matched an annotation open when it was allocated";
      break;
    case RuleTarget::Metadata:
      *why += " matched its user_metadata " + quoted(metadata);
      break;
    case RuleTarget::CompileContext:
      *why += " matched its compile_context " + quoted(compiled);
      break;
    default:
      for (std::uint32_t id : ids)
        if (id < snap_.frames.size() && matches(rule, snap_.frames[id])) {
          *why += " matched the frame " + frame_text(snap_.frames[id]);
          break;
        }
  }
  return &rule.category;
}

Categorised Categoriser::operator()(FramesId frames, std::int64_t lifetime_events, std::int64_t time_us,
                                    std::int64_t device, std::int64_t alloc_index) const {
  if (rules_) {
    std::string why;
    if (const Categorised* c = user_rule(frames, time_us, device, alloc_index, &why)) {
      Categorised out = *c;
      out.rule = std::move(why);
      return out;
    }
  }
  Categorised built = categorise(snap_, traits_, frames, lifetime_events);
  if ((built.category == Category::Other || built.category == Category::Unknown) && time_us >= 0)
    if (const Window* w = stage_window(time_us, device)) {
      const bool no_stack = built.category == Category::Unknown;
      const char* stage = "the optimizer step";
      built.category = Category::OptimizerState;
      if (w->stage == Stage::Backward)
        built.category = Category::Gradients, stage = "the backward pass";
      else if (w->stage == Stage::Forward)
        built.category = Category::Activations, stage = "the forward pass";
      built.rule = std::string(no_stack ? "no stack" : "no frame says what it is") + "; allocated in " +
                   stage + ", between the START and END markers of " + w->name + " (external_annotations)";
    }
  return built;
}

Categorised Categoriser::of(const TimelineElement& e, std::int64_t device) const {
  const std::int64_t life = e.start >= 0 && e.end >= 0 ? e.end - e.start : -1;
  std::int64_t time = -1;
  if (e.start >= 0 && device >= 0 && static_cast<std::size_t>(device) < snap_.device_traces.size()) {
    const auto& trace = snap_.device_traces[static_cast<std::size_t>(device)];
    if (static_cast<std::size_t>(e.start) < trace.size())
      time = trace[static_cast<std::size_t>(e.start)].time_us;
  }
  return (*this)(e.frames, life, time, device, e.start);
}

}  // namespace oomscope::snapshot
