// `diff` on two Kineto traces or two JAX memory profiles (profile_diff_document.h).

#include "app/cli/profile_diff_document.h"

#include <sstream>

#include "core/snapshot/file_kind.h"
#include "core/snapshot/profile_diff.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

using namespace oomscope::snapshot;

namespace {

const char* kind_words(FileKind k) {
  switch (k) {
    case FileKind::ChromeTrace:
      return "a Kineto trace";
    case FileKind::Pprof:
      return "a JAX memory profile (pprof)";
    case FileKind::TorchSnapshot:
      return "a PyTorch snapshot";
    default:
      return "neither a Kineto trace nor a JAX memory profile";
  }
}

}  // namespace

std::optional<Rendered> profile_diff_document(const std::string& a, const std::string& b, std::size_t top,
                                              ProgressSink& progress, const std::stop_token& stop,
                                              const CategoryRules* rules) {
  if (a == "-" || b == "-") return std::nullopt;
  const FileKind ka = detect_file_kind(a).kind, kb = detect_file_kind(b).kind;
  const auto ours = [](FileKind k) { return k == FileKind::ChromeTrace || k == FileKind::Pprof; };
  if (!ours(ka) && !ours(kb)) return std::nullopt;
  if (ka != kb)
    throw Error(ErrorKind::InvalidArgument, b,
                std::string("is ") + kind_words(kb) + " and A (" + a + ") is " + kind_words(ka) +
                    ": diff compares two files of one kind");
  ProfileDiff d;
  if (ka == FileKind::ChromeTrace) {
    const auto ta = read_kineto_trace(a, progress, stop);
    require_memory_events(*ta);
    const auto tb = read_kineto_trace(b, progress, stop);
    require_memory_events(*tb);
    d = diff_kineto(*ta, *tb, rules);
  } else {
    d = diff_pprof(*read_pprof(a), *read_pprof(b), top, rules);
  }
  std::ostringstream text;
  write_profile_diff_text(text, d);
  return Rendered{terminal_safe(text.str()), nlohmann::ordered_json(profile_diff_json(d))};
}

}  // namespace oomscope::cli
