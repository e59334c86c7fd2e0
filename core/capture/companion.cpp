#include "core/capture/companion.h"

#include <array>
#include <filesystem>
#include <string_view>
#include <utility>

namespace oomscope::capture {

namespace {

namespace fs = std::filesystem;

// Per-host files XProf writes as <host><suffix> beside <host>.xplane.pb.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kHostSuffixes{{
    {".trace.json.gz", "a trace-viewer export (.trace.json.gz)"},
    {".trace.json", "a trace-viewer export (.trace.json)"},
    {".memory_profile.json.gz", "a memory-profile export (.memory_profile.json.gz)"},
    {".memory_profile.json", "a memory-profile export (.memory_profile.json)"},
    {".overview_page.pb", "an overview-page summary (.overview_page.pb)"},
    {".input_pipeline.pb", "an input-pipeline summary (.input_pipeline.pb)"},
    {".tensorflow_stats.pb", "a TensorFlow-stats summary (.tensorflow_stats.pb)"},
    {".kernel_stats.pb", "a kernel-stats summary (.kernel_stats.pb)"},
}};
constexpr std::string_view kSidecar = ".hlo_proto.pb";

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool is_capture_name(const std::string& name) {
  return name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz");
}

}  // namespace

std::optional<std::string> companion_role(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  for (const auto& [suffix, role] : kHostSuffixes)
    if (name.size() > suffix.size() && name.ends_with(suffix)) return std::string(role);
  if (name.size() > kSidecar.size() && name.ends_with(kSidecar))
    return std::string("an HLO sidecar (.hlo_proto.pb) that holds one module's plan");
  return std::nullopt;
}

std::optional<std::string> capture_beside(const std::string& path) {
  const fs::path p(path);
  const std::string name = p.filename().string();
  for (const auto& [suffix, role] : kHostSuffixes) {
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
    const std::string host = name.substr(0, name.size() - suffix.size());
    for (const char* ext : {".xplane.pb", ".xplane.pb.gz"}) {
      const fs::path capture = p.parent_path() / (host + ext);
      if (is_file(capture)) return capture.string();
    }
    return std::nullopt;
  }
  if (name.size() <= kSidecar.size() || !name.ends_with(kSidecar)) return std::nullopt;
  std::optional<std::string> only;
  std::error_code ec;
  const fs::path folder = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (!is_capture_name(it->path().filename().string()) || !is_file(it->path())) continue;
    if (only) return std::nullopt;  // several hosts: which one holds the module is not for the name to say
    only = (p.parent_path() / it->path().filename()).string();
  }
  return only;
}

Error companion_error(const std::string& path, const std::string& capture) {
  const std::string role = companion_role(path).value_or("a file the profiler writes beside its capture");
  return Error(ErrorKind::CompanionNeeded, path,
               "is " + role + ", not a capture; the capture it belongs to is " +
                   fs::path(capture).filename().string() + " in the same folder: open that instead")
      .with_companion(capture);
}

std::optional<Error> instead_of(const Error& e, const std::string& path) {
  const ErrorKind k = e.kind();
  if (k != ErrorKind::Gzip && k != ErrorKind::NotACapture && k != ErrorKind::Damaged) return std::nullopt;
  if (auto capture = capture_beside(path)) return companion_error(path, *capture);
  return std::nullopt;
}

}  // namespace oomscope::capture
