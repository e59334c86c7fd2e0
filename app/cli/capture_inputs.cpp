#include "app/cli/capture_inputs.h"

#include <filesystem>

#include "core/util/error.h"
#include "core/util/files_under.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

std::vector<std::string> expand_capture_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found = files_under(in, {".xplane.pb", ".xplane.pb.gz"});
    // ... or the per-rank snapshots of a job (by name: .pickle, .pkl, .pickle.gz; their content is checked
    // later, so a file named like one that is none is named in an error, not skipped) ...
    if (found.empty()) found = files_under(in, {".pickle", ".pkl", ".pickle.gz"});
    // ... or its per-rank Chrome traces (Kineto writes NAME.pt.trace.json[.gz]), read by content later.
    if (found.empty()) found = files_under(in, {".json", ".json.gz"});
    if (found.empty())
      throw Error(ErrorKind::NotFound, in,
                  "the folder holds no .xplane.pb or .xplane.pb.gz capture, no .pickle snapshot and no .json "
                  "or .json.gz trace");
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

}  // namespace oomscope::cli
