#include "core/util/files_under.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <utility>

namespace oomscope {

namespace fs = std::filesystem;

std::vector<std::string> files_under(const std::string& folder,
                                     std::initializer_list<std::string_view> suffixes) {
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

std::vector<std::size_t> first_names(const std::vector<std::string>& files) {
  std::vector<std::size_t> first(files.size());
  std::vector<std::pair<std::pair<dev_t, ino_t>, std::size_t>> seen;  // (device, inode), first index
  for (std::size_t i = 0; i < files.size(); ++i) {
    first[i] = i;
    struct stat st {};
    if (::stat(files[i].c_str(), &st) != 0) continue;
    const auto key = std::pair(st.st_dev, st.st_ino);
    const auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == key; });
    if (it != seen.end())
      first[i] = it->second;
    else
      seen.emplace_back(key, i);
  }
  return first;
}

std::vector<std::string> without_repeats(const std::vector<std::string>& files) {
  const std::vector<std::size_t> first = first_names(files);
  std::vector<std::string> unique;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (first[i] == i) unique.push_back(files[i]);
  return unique;
}

}  // namespace oomscope
