#include "core/snapshot/entry_context.h"

#include <algorithm>

#include "core/snapshot/categories.h"
#include "core/util/safe_text.h"

namespace oomscope::snapshot {

namespace {

std::string first_line(const std::string& s, std::size_t max = 160) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > max) line = line.substr(0, max) + "...";
  return line;
}

}  // namespace

std::string EntryContext::text() const {
  std::string out;
  auto add = [&](const std::string& part) {
    if (!out.empty()) out += "; ";
    out += part;
  };
  if (!compile_context.empty()) add("compiled region '" + first_line(compile_context) + "'");
  if (!user_metadata.empty()) add("metadata '" + first_line(user_metadata) + "'");
  for (std::size_t i = 0; i < annotations.size() && i < 3; ++i)
    add("annotated '" + first_line(annotations[i]) + "'");
  if (annotations.size() > 3) add(std::to_string(annotations.size() - 3) + " more annotations");
  if (!forward_where.empty()) add("forward pass at " + forward_where);
  if (!fx.empty()) add(fx);
  return single_line_safe(out);
}

std::string fx_frame_text(const Snapshot& snap, FramesId frames) {
  if (snap.frame_fx.empty()) return {};
  for (std::uint32_t id : snap.frames_of(frames)) {
    auto it = std::lower_bound(snap.frame_fx.begin(), snap.frame_fx.end(), id,
                               [](const FrameFx& f, std::uint32_t v) { return f.frame < v; });
    if (it == snap.frame_fx.end() || it->frame != id) continue;
    const FrameFx& f = *it;
    if (f.node_op.empty() && f.node_name.empty()) continue;
    std::string s = "FX " + (f.node_op.empty() ? std::string("node") : f.node_op);
    if (!f.node_name.empty()) s += " '" + f.node_name + "'";
    if (!f.original_trace.empty()) {
      // The original trace is a Python traceback, outermost first: its last 'File' line is the model code.
      const std::string& tr = f.original_trace;
      const std::size_t at = tr.rfind("File ");
      s += " traced from " + first_line(at == std::string::npos ? tr : tr.substr(at));
    }
    return s;
  }
  return {};
}

std::size_t fx_frame_count(const Snapshot& snap) {
  std::size_t n = 0;
  for (const FrameFx& f : snap.frame_fx) n += !f.node_op.empty() || !f.node_name.empty();
  return n;
}

EntryContextIndex::EntryContextIndex(const Snapshot& snap, std::int64_t device) : snap_(snap) {
  for (const EntryExtra& e : snap.entry_extras)
    if (static_cast<std::int64_t>(e.device) == device) extras_.emplace(e.index, &e);
  if (device < 0 || static_cast<std::size_t>(device) >= snap.device_traces.size()) return;
  const auto& trace = snap.device_traces[static_cast<std::size_t>(device)];
  for (std::size_t i = 0; i < trace.size(); ++i)
    if (trace[i].action == Action::Annotate) {
      annotates_[trace[i].addr].push_back(static_cast<std::uint32_t>(i));
      ++annotate_count_;
    }
}

EntryContext EntryContextIndex::at(std::int64_t alloc_index, std::uint64_t addr, std::int64_t end,
                                   FramesId frames) const {
  EntryContext c;
  if (alloc_index >= 0)
    if (auto it = extras_.find(static_cast<std::uint32_t>(alloc_index)); it != extras_.end()) {
      c.compile_context = snap_.text(it->second->compile_context);
      c.user_metadata = snap_.text(it->second->user_metadata);
      if (it->second->forward_frames) c.forward_where = user_frame(snap_, it->second->forward_frames);
    }
  if (auto it = annotates_.find(addr); it != annotates_.end())
    for (std::uint32_t i : it->second) {
      if (static_cast<std::int64_t>(i) < alloc_index || (end >= 0 && static_cast<std::int64_t>(i) > end))
        continue;
      if (auto x = extras_.find(i); x != extras_.end() && x->second->user_metadata)
        c.annotations.push_back(snap_.text(x->second->user_metadata));
    }
  c.fx = fx_frame_text(snap_, frames);
  return c;
}

}  // namespace oomscope::snapshot
