// Progress notifications of one tool call (call_progress.h).

#include "core/mcp/call_progress.h"

#include <algorithm>
#include <cmath>

namespace oomscope::mcp {

void CallProgress::report(double fraction, std::string_view stage) {
  if (token_.is_null() || !std::isfinite(fraction)) return;
  const int percent = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100.0);
  if (percent <= last_percent_) return;
  last_percent_ = percent;
  Json params{{"progressToken", token_}, {"progress", percent}, {"total", 100}};
  if (!stage.empty()) params["message"] = std::string(stage);
  out_.send(make_notification("notifications/progress", std::move(params)));
}

}  // namespace oomscope::mcp
