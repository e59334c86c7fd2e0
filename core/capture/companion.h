#pragma once
// Companion files: what a profiler writes beside its capture. XProf (JAX, TensorFlow) writes, per host,
// plugins/profile/<run>/<host>.xplane.pb and, depending on the version and the tools asked for,
// <host>.trace.json.gz (a trace-viewer export), <host>.memory_profile.json.gz and a few <host>.<tool>.pb
// summaries; an HLO dump adds <module>(<id>).hlo_proto.pb sidecars. None of these is a capture; when one is
// opened and its capture lies beside it, the error says so and names the capture
// (ErrorKind::CompanionNeeded), and the GUI offers to open it.

#include <optional>
#include <string>

#include "core/util/error.h"

namespace oomscope::capture {

// What the file name says the file is ("a trace-viewer export (.trace.json.gz)"), or nullopt for a name that
// is no known companion.
std::optional<std::string> companion_role(const std::string& path);

// The capture beside a companion file: <host>.xplane.pb (or .xplane.pb.gz) with the same <host> for the
// per-host exports; for an .hlo_proto.pb sidecar, the only capture in its folder. nullopt when the name is
// no companion's or no such capture exists.
std::optional<std::string> capture_beside(const std::string& path);

// The CompanionNeeded error for path, naming the capture to open (companion()).
Error companion_error(const std::string& path, const std::string& capture);

// The companion_error to throw instead of `e` when path is a companion with a capture beside it and e says
// the file is in the wrong format (Gzip, NotACapture, Damaged: a reader met what is not its format); else
// nullopt (then `throw;` keeps e as it was):
//   catch (const Error& e) { if (auto c = instead_of(e, path)) throw *c; throw; }
std::optional<Error> instead_of(const Error& e, const std::string& path);

}  // namespace oomscope::capture
