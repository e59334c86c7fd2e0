#pragma once
// Writing an output file without ever destroying data: the content goes to a temporary file in the target's
// folder, which is synced and renamed over the target only once it is complete, and the folder is synced
// after the rename. A failed write or a crash leaves the old file as it was; a target that is a hard link to
// another file (say, a capture) gets a new inode, so the other name keeps its bytes; a target that is a
// symbolic link is followed (every link, dangling ones too) and the file it leads to is replaced.

#include <filesystem>
#include <string>
#include <string_view>

namespace oomscope {

// `path` with every symbolic link resolved, in every component, also where the link points nowhere (a
// dangling link leads to the path it names). Relative paths are taken from the working folder. Throws
// oomscope::Error (Io) on a link loop.
std::filesystem::path resolve_all_links(const std::filesystem::path& path);

struct WriteResult {
  std::filesystem::path written;  // the file actually written (links resolved)
  bool replaced = false;          // a file was there before and was replaced
};

// Throws oomscope::Error (Io, InvalidArgument) naming `path` and the system's reason.
WriteResult write_file_atomically(const std::string& path, std::string_view content);

}  // namespace oomscope
