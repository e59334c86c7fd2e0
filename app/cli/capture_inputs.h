#pragma once
// Capture files named on the command line, with folders expanded (report and info read the same inputs).

#include <string>
#include <vector>

namespace oomscope::cli {

// Files named on the command line, folders expanded to the .xplane.pb / .xplane.pb.gz files under them
// (sorted), or, in a folder with none, to the PyTorch snapshots (.pickle, .pkl, .pickle.gz) under it (a job's
// per-rank dumps). Throws oomscope::Error(NotFound) naming a folder that holds neither.
std::vector<std::string> expand_capture_inputs(const std::vector<std::string>& inputs);

}  // namespace oomscope::cli
