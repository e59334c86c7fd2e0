#pragma once
// `--serve PORT|unix:PATH`: the demo trainer serves live stats (protocol v1) with the C++ agent: the budgeted
// allocator's live, peak and refused-allocation figures, the process RSS, device memory when there is a
// driver, the optimizer step, and oom / split / checkpoint / restart events from the trainer's observer.

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "core/live/agent/agent_server.h"
#include "core/train/train_observer.h"

namespace oomscope::demo {

class LiveServe final : public train::TrainObserver {
 public:
  // `where`: a port number, HOST:PORT or unix:PATH; `metrics` (Prometheus /metrics): empty, a port number
  // or HOST:PORT; `job`: its job label. Throws oomscope::Error when it cannot serve.
  LiveServe(const std::string& where, std::int64_t budget_bytes, std::vector<std::string> command,
            const std::string& metrics = {}, const std::string& job = {});
  ~LiveServe() override;
  std::string endpoint() const { return server_->endpoint().to_string(); }

  void batch_started(std::int64_t batch, std::int64_t points, std::int64_t scenes) override;
  void attempt_finished(const train::AttemptReport& attempt) override;
  void out_of_memory(const train::AttemptReport& attempt, std::int64_t requested_bytes) override;
  void split(std::int64_t parent_event, const char* kind, int children_queued, int children_dropped) override;
  void step_finished(const train::StepReport& step) override;
  void checkpoint_written(const std::string& path, std::int64_t next_batch) override;
  void restarting(std::int64_t live_bytes, std::int64_t threshold) override;
  void restarting_before_oom(const std::string& why) override;

 private:
  std::unique_ptr<live::AgentServer> server_;
  std::int64_t step_ = -1, attempts_ = 0;
  std::set<std::pair<std::int64_t, std::int64_t>> shapes_;  // (scenes, points) per batch attempted
};

}  // namespace oomscope::demo
