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

// For each name in `files`, the index of the first name of the same file: its own index where it is the
// first, and that earlier index where it repeats one (the same path again, or another path to the same file,
// as a file and the folder that holds it give). Files are told apart by device and inode; a name that does
// not exist repeats nothing, so each such name is left for its reader to name in its error.
std::vector<std::size_t> first_names(const std::vector<std::string>& files);

// `files` in their order with only the first name of each file (first_names): a run named twice over is read
// once.
std::vector<std::string> without_repeats(const std::vector<std::string>& files);

}  // namespace oomscope
