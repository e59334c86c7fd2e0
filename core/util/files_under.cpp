#include "core/util/files_under.h"

#include <algorithm>
#include <filesystem>

namespace oomscope {

std::vector<std::string> files_under(const std::string& folder,
                                     std::initializer_list<std::string_view> suffixes) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file(ec) &&
        std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view s) { return name.ends_with(s); }))
      found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace oomscope
