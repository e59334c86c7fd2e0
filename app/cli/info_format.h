#pragma once
// The text and JSON renderings of `oomscope-cli info`.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/capture/capture.h"

namespace oomscope::cli {

std::string info_text(const capture::Capture& capture);
nlohmann::ordered_json info_json(const capture::Capture& capture);

}  // namespace oomscope::cli
