// `diff` on two live recordings (recording_diff_document.h).

#include "app/cli/recording_diff_document.h"

#include <cstdio>
#include <sstream>

#include "app/cli/command.h"
#include "core/live/client/recording_diff.h"
#include "core/live/client/replay.h"
#include "core/snapshot/file_kind.h"
#include "core/util/bytes.h"
#include "core/util/columns.h"
#include "core/util/error.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

using namespace oomscope::live;
using Json = nlohmann::ordered_json;
using Opt = std::optional<std::int64_t>;

namespace {

std::string kind_words(const std::string& path) {
  if (looks_like_recording(path)) return "a live recording";
  const snapshot::FileKindInfo k = snapshot::detect_file_kind(path);
  switch (k.kind) {
    case snapshot::FileKind::TorchSnapshot:
      return "a PyTorch snapshot";
    case snapshot::FileKind::ChromeTrace:
      return "a Kineto trace";
    case snapshot::FileKind::Pprof:
      return "a JAX memory profile (pprof)";
    default:
      return "not a live recording (it looks like " + k.looks_like + ")";
  }
}

std::string signed_bytes(std::int64_t v) {
  return (v > 0 ? "+" : v < 0 ? "-" : "") + format_bytes(v < 0 ? -v : v);
}

std::string change_text(const Opt& a, const Opt& b, bool bytes) {
  if (!a || !b) return "-";
  const std::int64_t x = *b - *a;
  std::string s = bytes ? signed_bytes(x) : (x >= 0 ? "+" : "") + std::to_string(x);
  if (bytes && *a != 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%+.1f %%)", 100.0 * static_cast<double>(x) / static_cast<double>(*a));
    s += buf;
  }
  return s;
}

Json or_null(const Opt& v) { return v ? Json(*v) : Json(nullptr); }

Opt peak_allocated(const RecordingRankFigures& f) { return f.has_allocated ? Opt(f.peak_allocated) : Opt(); }
Opt peak_reserved(const RecordingRankFigures& f) { return f.has_reserved ? Opt(f.peak_reserved) : Opt(); }

std::string steps_text(const RecordingRankSteps& s) {
  if (s.by_step.empty()) return "none";
  return std::to_string(s.steps()) + " (" + std::to_string(*s.first_step) + "-" +
         std::to_string(*s.last_step) + ")";
}

std::string oom_text(const RecordingOom& o) {
  std::string s = o.step ? "step " + std::to_string(*o.step) + (o.step_from_event ? "" : " (last sample's)")
                         : std::string("no step");
  return s + ", request " + (o.requested ? format_bytes(*o.requested) : std::string("not in the message"));
}

void write_rank_text(std::ostream& o, const RecordingRankDiff& r, const std::string& matched_by) {
  const RecordingRankFigures* a = r.a ? &*r.a : nullptr;
  const RecordingRankFigures* b = r.b ? &*r.b : nullptr;
  o << "\nrank " << r.key;
  if (matched_by == "hello rank")
    o << " (recording index A " << (a ? std::to_string(a->rank) : "-") << ", B "
      << (b ? std::to_string(b->rank) : "-") << ")";
  if (!a || !b) o << ": in " << (a ? "A" : "B") << " only";
  o << "\n" << pad_right("", 28) << pad_right("A", 14) << pad_right("B", 14) << "B - A\n";
  const auto row = [&](const std::string& name, Opt va, Opt vb, bool bytes) {
    const auto f = [&](const Opt& v) {
      return !v ? std::string("-") : bytes ? format_bytes(*v) : std::to_string(*v);
    };
    o << pad_right(name, 28) << pad_right(f(va), 14) << pad_right(f(vb), 14) << change_text(va, vb, bytes)
      << "\n";
  };
  const auto get = [](const RecordingRankFigures* f, Opt (*g)(const RecordingRankFigures&)) {
    return f ? g(*f) : Opt();
  };
  row("peak allocated [derived]", get(a, peak_allocated), get(b, peak_allocated), true);
  row("peak reserved [derived]", get(a, peak_reserved), get(b, peak_reserved), true);
  if ((a && a->peak_driver) || (b && b->peak_driver))
    row("peak driver (MPS) [derived]", a ? a->peak_driver : Opt(), b ? b->peak_driver : Opt(), true);
  row("capacity [read]", a ? a->capacity : Opt(), b ? b->capacity : Opt(), true);
  row("samples", a ? Opt(a->samples) : Opt(), b ? Opt(b->samples) : Opt(), false);
  row("OOM events [read]", a ? Opt(static_cast<std::int64_t>(a->ooms.size())) : Opt(),
      b ? Opt(static_cast<std::int64_t>(b->ooms.size())) : Opt(), false);
  o << pad_right("steps sampled", 28) << pad_right(a ? steps_text(r.steps_a) : "-", 14)
    << (b ? steps_text(r.steps_b) : "-") << "\n";
  const auto step = [](const Opt& s) { return s ? std::to_string(*s) : std::string("-"); };
  o << pad_right("step at peak allocated", 28)
    << pad_right(a ? step(r.steps_a.step_at_peak_allocated) : "-", 14)
    << (b ? step(r.steps_b.step_at_peak_allocated) : "-") << "\n";
  for (const auto& [side, f] : {std::pair{"A", a}, std::pair{"B", b}})
    if (f)
      for (const RecordingOom& oom : f->ooms) o << "  " << side << " OOM: " << oom_text(oom) << "\n";
  if (r.aligned) {
    const RecordingStepAlignment& al = *r.aligned;
    o << "aligned by step: " << al.common_steps << " steps in common (" << al.first_step << "-"
      << al.last_step << ")";
    if (al.largest_change_step)
      o << "; sampled allocated differs most at step " << *al.largest_change_step << ": A "
        << format_bytes(al.a_allocated) << ", B " << format_bytes(al.b_allocated) << " ("
        << signed_bytes(al.b_allocated - al.a_allocated) << ")";
    else
      o << "; no step in common has allocated in both";
    o << " [derived]\n";
  } else if (a && b) {
    o << "not aligned by step: " << r.not_aligned << "\n";
  }
}

// The verdict naming ranks as the table does: by hello rank when the ranks were matched by it.
const RecordingVerdict& verdict_as_matched(const RecordingComparison& c, const std::string& matched_by) {
  return matched_by == "hello rank" && c.verdict_by_hello_rank ? *c.verdict_by_hello_rank : c.verdict;
}

void write_verdict_text(std::ostream& o, const char* side, const RecordingComparison& c,
                        const std::string& matched_by) {
  const RecordingVerdict& v = verdict_as_matched(c, matched_by);
  o << "verdict of " << side << ": rank " << v.rank << " (" << v.kind << ")\n";
  for (const std::string& s : v.sentences) o << "  " << s << "\n";
}

Json side_json(const RecordingRankFigures& f, const RecordingRankSteps& s, std::int64_t t0) {
  Json ooms = Json::array();
  for (const RecordingOom& o : f.ooms)
    ooms.push_back({{"offset_s", static_cast<double>(o.t - t0) / 1e9},
                    {"step", or_null(o.step)},
                    {"step_from", o.step ? (o.step_from_event ? "event" : "last-sample") : ""},
                    {"requested_bytes", or_null(o.requested)}});
  return {{"recording_rank", f.rank},
          {"hello_rank", f.hello_rank ? Json(*f.hello_rank) : Json(nullptr)},
          {"host", f.host},
          {"device", f.device},
          {"samples", f.samples},
          {"peak_allocated_bytes", or_null(peak_allocated(f))},
          {"peak_reserved_bytes", or_null(peak_reserved(f))},
          {"peak_driver_bytes", or_null(f.peak_driver)},
          {"capacity_bytes", or_null(f.capacity)},
          {"capacity_source", f.capacity_from},
          {"steps", s.steps()},
          {"first_step", or_null(s.first_step)},
          {"last_step", or_null(s.last_step)},
          {"step_at_peak_allocated", or_null(s.step_at_peak_allocated)},
          {"step_at_peak_reserved", or_null(s.step_at_peak_reserved)},
          {"ooms", std::move(ooms)}};
}

Json rank_json(const RecordingRankDiff& r, const RecordingDiff& d) {
  const auto change = [&](Opt (*g)(const RecordingRankFigures&)) {
    if (!r.a || !r.b) return Json(nullptr);
    const Opt x = g(*r.a), y = g(*r.b);
    return x && y ? Json(*y - *x) : Json(nullptr);
  };
  Json j = {{"rank", r.key},
            {"in", r.a && r.b ? "both"
                   : r.a      ? "a"
                              : "b"},
            {"a", r.a ? side_json(*r.a, r.steps_a, d.a.t0) : Json(nullptr)},
            {"b", r.b ? side_json(*r.b, r.steps_b, d.b.t0) : Json(nullptr)},
            {"change",
             {{"peak_allocated_bytes", change(peak_allocated)},
              {"peak_reserved_bytes", change(peak_reserved)},
              {"peak_driver_bytes", change([](const RecordingRankFigures& f) { return f.peak_driver; })},
              {"capacity_bytes", change([](const RecordingRankFigures& f) { return f.capacity; })}}}};
  if (r.aligned) {
    const RecordingStepAlignment& al = *r.aligned;
    Json largest = nullptr;
    if (al.largest_change_step)
      largest = {{"step", *al.largest_change_step},
                 {"a_allocated_bytes", al.a_allocated},
                 {"b_allocated_bytes", al.b_allocated},
                 {"delta_bytes", al.b_allocated - al.a_allocated}};
    j["aligned"] = {{"common_steps", al.common_steps},
                    {"first_step", al.first_step},
                    {"last_step", al.last_step},
                    {"largest_allocated_change", std::move(largest)}};
  } else {
    j["aligned"] = nullptr;
  }
  j["not_aligned"] = r.not_aligned;
  return j;
}

Json verdict_json(const RecordingComparison& c, const std::string& matched_by) {
  const RecordingVerdict& v = verdict_as_matched(c, matched_by);
  return {{"rank", v.rank}, {"case", v.kind}, {"sentences", v.sentences}, {"oom_ranks", v.oom_ranks}};
}

Json truncated_json(const RecordingComparison& c) {
  return c.truncated_note.empty() ? Json(nullptr) : Json(c.truncated_note);
}

}  // namespace

std::optional<Rendered> recording_diff_document(const std::string& a, const std::string& b,
                                                bool with_category_rules, const std::stop_token& stop) {
  if (a == "-" || b == "-") return std::nullopt;
  const bool ra = looks_like_recording(a), rb = looks_like_recording(b);
  if (!ra && !rb) return std::nullopt;
  if (ra != rb)
    throw Error(ErrorKind::InvalidArgument, b,
                "is " + kind_words(b) + " and A (" + a + ") is " + kind_words(a) +
                    ": diff compares two files of one kind");
  if (with_category_rules)
    throw UsageError{
        "--categories applies to PyTorch allocator snapshots (.pickle): a live recording holds sampled "
        "totals, no allocations to categorise"};
  const RecordingDiff d = diff_recordings(a, b, stop);

  std::ostringstream o;
  o << "A: " << a << "\nB: " << b << "\n";
  o << "live recordings; A " << d.a.ranks.size() << " rank" << (d.a.ranks.size() == 1 ? "" : "s") << ", B "
    << d.b.ranks.size() << " rank" << (d.b.ranks.size() == 1 ? "" : "s") << " with samples; ranks matched by "
    << d.matched_by << "\n";
  if (!d.matched_by_reason.empty()) o << "  (" << d.matched_by_reason << ")\n";
  if (!d.a.truncated_note.empty()) o << "A: " << d.a.truncated_note << "\n";
  if (!d.b.truncated_note.empty()) o << "B: " << d.b.truncated_note << "\n";
  for (const RecordingRankDiff& r : d.ranks) write_rank_text(o, r, d.matched_by);
  o << "\n";
  write_verdict_text(o, "A", d.a, d.matched_by);
  write_verdict_text(o, "B", d.b, d.matched_by);
  o << "\nwhat a recording cannot tell:\n";
  for (const std::string& s : d.cannot_tell) o << "  " << s << "\n";

  Json j;
  j["format"] = "live-recording";
  j["a"] = a;
  j["b"] = b;
  j["ranks_matched_by"] = d.matched_by;
  j["truncated_a"] = truncated_json(d.a);
  j["truncated_b"] = truncated_json(d.b);
  j["ranks"] = Json::array();
  for (const RecordingRankDiff& r : d.ranks) j["ranks"].push_back(rank_json(r, d));
  j["verdict_a"] = verdict_json(d.a, d.matched_by);
  j["verdict_b"] = verdict_json(d.b, d.matched_by);
  j["sites"] = nullptr;
  j["cannot_tell"] = d.cannot_tell;
  return Rendered{terminal_safe(o.str()), std::move(j)};
}

}  // namespace oomscope::cli
