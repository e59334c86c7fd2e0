#include "app/cli/capture_inputs.h"

#include <algorithm>
#include <filesystem>

#include "core/util/error.h"

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
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (const std::string name = it->path().filename().string();
          it->is_regular_file(ec) && (name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz")))
        found.push_back(it->path().string());
    if (found.empty())
      throw Error(ErrorKind::NotFound, in, "the folder holds no .xplane.pb or .xplane.pb.gz capture");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

}  // namespace oomscope::cli
