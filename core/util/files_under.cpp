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

std::vector<FileRepeat> find_repeats(const std::vector<std::string>& files) {
  std::vector<FileRepeat> repeats;
  std::vector<std::pair<std::pair<dev_t, ino_t>, std::size_t>> seen;  // (device, inode), first index
  for (std::size_t i = 0; i < files.size(); ++i) {
    struct stat st {};
    if (::stat(files[i].c_str(), &st) != 0) continue;
    const auto key = std::pair(st.st_dev, st.st_ino);
    const auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == key; });
    if (it != seen.end())
      repeats.push_back({i, it->second});
    else
      seen.emplace_back(key, i);
  }
  return repeats;
}

std::vector<std::string> without_repeats(const std::vector<std::string>& files) {
  const std::vector<FileRepeat> repeats = find_repeats(files);
  std::vector<std::string> unique;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (std::none_of(repeats.begin(), repeats.end(), [&](const FileRepeat& r) { return r.again == i; }))
      unique.push_back(files[i]);
  return unique;
}

}  // namespace oomscope
