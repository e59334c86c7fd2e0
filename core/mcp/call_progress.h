#pragma once
// The progress sink a tool call runs with. When the request carried a progress token (params._meta
// .progressToken), each step of at least one percent becomes a notifications/progress message with the
// token, progress in percent (always increasing, as MCP requires: a job that starts a second stage from
// zero is reported again only once it passes what was sent), total 100 and the stage as the message.
// Without a token it sends nothing.

#include <string>

#include "core/mcp/json_rpc.h"
#include "core/mcp/output_channel.h"
#include "core/util/progress.h"

namespace oomscope::mcp {

class CallProgress final : public ProgressSink {
 public:
  CallProgress(OutputChannel& out, Json token) : out_(out), token_(std::move(token)) {}
  void report(double fraction, std::string_view stage) override;

 private:
  OutputChannel& out_;
  Json token_;  // null: no notifications
  int last_percent_ = -1;
};

}  // namespace oomscope::mcp
