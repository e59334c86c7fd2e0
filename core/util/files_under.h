#pragma once
// The files under a folder (at any depth) whose names end in one of the given suffixes, sorted by path:
// how the CLI and the GUI turn a folder the user named into the capture, snapshot or trace files of a run.
// Folders that cannot be read are skipped; an unreadable top folder gives no files.

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace oomscope {

std::vector<std::string> files_under(const std::string& folder,
                                     std::initializer_list<std::string_view> suffixes);

}  // namespace oomscope
