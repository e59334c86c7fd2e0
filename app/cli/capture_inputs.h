#pragma once
// Capture files named on the command line, with folders expanded (report and info read the same inputs).

#include <string>
#include <vector>

namespace oomscope::cli {

// Files named on the command line, folders expanded to the .xplane.pb / .xplane.pb.gz files under them
// (sorted). Throws oomscope::Error(NotFound) naming a folder that holds none.
std::vector<std::string> expand_capture_inputs(const std::vector<std::string>& inputs);

}  // namespace oomscope::cli
