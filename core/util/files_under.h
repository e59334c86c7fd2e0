#pragma once
// The files under a folder (at any depth) whose names end in one of the given suffixes, sorted by path:
// how the CLI and the GUI turn a folder the user named into the capture, snapshot or trace files of a run.
// Folders that cannot be read are skipped; an unreadable top folder gives no files.

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace oomscope {

std::vector<std::string> files_under(const std::string& folder,
                                     std::initializer_list<std::string_view> suffixes);

// The names in `files` of a file named earlier too (the same path again, or another path to the same file, as
// a file and the folder that holds it give): `again` is the later name's index, `first` the first one's, in
// the order of `files`. Files are told apart by device and inode; a name that does not exist repeats nothing,
// so each such name is left for its reader to name in its error.
struct FileRepeat {
  std::size_t again = 0;
  std::size_t first = 0;
};
std::vector<FileRepeat> find_repeats(const std::vector<std::string>& files);

// `files` in their order without the repeats `find_repeats` finds: a run named twice over is read once.
std::vector<std::string> without_repeats(const std::vector<std::string>& files);

}  // namespace oomscope
