#include "app/cli/capture_inputs.h"

#include <algorithm>
#include <filesystem>

#include "core/util/error.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

namespace {

// PyTorch snapshots under a folder, by name (.pickle, .pkl, .pickle.gz); their content is checked later, so
// a file named like one that is none is named in an error, not skipped.
std::vector<std::string> snapshots_under(const std::string& in) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (const std::string name = it->path().filename().string();
        it->is_regular_file(ec) &&
        (name.ends_with(".pickle") || name.ends_with(".pkl") || name.ends_with(".pickle.gz")))
      found.push_back(it->path().string());
  return found;
}

// Chrome traces under a folder, by name (.json, .json.gz: Kineto writes NAME.pt.trace.json[.gz]), for the
// per-rank traces of a job; read by content later.
std::vector<std::string> traces_under(const std::string& in) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (const std::string name = it->path().filename().string();
        it->is_regular_file(ec) && (name.ends_with(".json") || name.ends_with(".json.gz")))
      found.push_back(it->path().string());
  return found;
}

}  // namespace

std::vector<std::string> expand_capture_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (const std::string name = it->path().filename().string();
          it->is_regular_file(ec) && (name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz")))
        found.push_back(it->path().string());
    if (found.empty()) found = snapshots_under(in);  // the per-rank snapshots of a job
    if (found.empty()) found = traces_under(in);     // ... or its per-rank Kineto traces
    if (found.empty())
      throw Error(ErrorKind::NotFound, in,
                  "the folder holds no .xplane.pb or .xplane.pb.gz capture, no .pickle snapshot and no .json "
                  "or .json.gz trace");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

}  // namespace oomscope::cli
