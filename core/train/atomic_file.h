#pragma once
// Files that are either wholly old or wholly new: write a temporary file beside the target, fsync it,
// rename it over the target, fsync the directory. A crash at any point leaves the previous file intact.

#include <string>

namespace oomscope::train {

// Throws oomscope::Error (Io) naming the file when any step fails; the temporary file is removed then.
void write_file_atomic(const std::string& path, const std::string& bytes);
// The whole file; throws oomscope::Error (NotFound / Io) naming it.
std::string read_file(const std::string& path);

}  // namespace oomscope::train
