// The demo trainer's live agent (see live_serve.h).

#include "app/demo-trainer/live_serve.h"

#include <chrono>
#include <iostream>
#include <thread>

#include "core/live/agent/device_stats.h"
#include "core/train/budget_allocator.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::demo {

namespace {

// The budgeted allocator's figures (atomics: safe to read from the agent's thread).
class BudgetAllocatorSource final : public live::StatsSource {
 public:
  std::string name() const override { return "budgeted allocator"; }
  void fill(live::Sample& s) override {
    const train::AllocatorStats a = train::allocator_stats();
    if (!a.installed) return;
    s.set(live::Field::Allocated, a.live_bytes);
    s.set(live::Field::PeakAllocated, a.peak_bytes);
    s.set(live::Field::Ooms, a.oom_count);
  }
};

live::Endpoint parse_where(const std::string& where) {
  if (!where.empty() && where.size() <= 5 && where.find_first_not_of("0123456789") == std::string::npos) {
    const int port = std::stoi(where);  // 0: a free port
    if (port > 65535) throw Error(ErrorKind::InvalidArgument, {}, "port " + where + " is over 65535");
    return live::Endpoint{false, "127.0.0.1", port, {}};
  }
  return live::parse_endpoint(where);
}

}  // namespace

LiveServe::LiveServe(const std::string& where, std::int64_t budget_bytes, std::vector<std::string> command,
                     const std::string& metrics, const std::string& job) {
  live::AgentOptions o;
  o.listen = parse_where(where);
  if (!metrics.empty()) o.metrics = parse_where(metrics);
  o.job = job;
  o.device_label = "cpu";
  if (const char* t = std::getenv("OOMSCOPE_TOKEN")) o.token = t;
  live::DeviceInfo device;
  std::string note;
  auto devices = live::make_device_sources(0, 0, device, note);
  o.hello.backend = "cpu";
  o.hello.device = "budgeted CPU allocator";
  o.hello.total_bytes = budget_bytes;
  o.hello.framework = "libtorch " + train::torch_version();
  o.hello.command = std::move(command);
  server_ = std::make_unique<live::AgentServer>(o);
  server_->add_source(std::make_unique<BudgetAllocatorSource>());
  server_->add_source(std::make_unique<live::ProcessRssSource>());
  for (auto& d : devices) server_->add_source(std::move(d));
  server_->start();
  std::cerr << "oomscope-demo-trainer: serving live stats on " << server_->endpoint().to_string() << " ("
            << note << ")\n";
  if (!metrics.empty())
    std::cerr << "oomscope-demo-trainer: Prometheus metrics at http://" << server_->metrics_endpoint()
              << "/metrics\n";
}

LiveServe::~LiveServe() { server_->stop(); }

void LiveServe::batch_started(std::int64_t batch, std::int64_t points, std::int64_t scenes) {
  if (shapes_.size() < 100'000 && shapes_.emplace(scenes, points).second)
    server_->post_shapes(
        live::Shapes{0, static_cast<std::int64_t>(shapes_.size()), {scenes, points}, {{scenes, points}}});
  (void)batch;
}

void LiveServe::attempt_finished(const train::AttemptReport&) {
  ++attempts_;
  server_->set_step(step_, attempts_);
}

void LiveServe::out_of_memory(const train::AttemptReport& a, std::int64_t requested) {
  live::Event e;
  e.kind = "oom";
  e.message = "allocation of " + format_bytes(requested) + " refused with " +
              format_bytes(train::allocator_stats().last_oom_live) + " live";
  if (step_ >= 0) e.step = step_;  // the last optimizer step finished
  (void)a;
  server_->post_event(std::move(e));
}

void LiveServe::split(std::int64_t parent_event, const char* kind, int queued, int dropped) {
  live::Event e;
  e.kind = "split";
  e.message = std::string(kind) + " split of attempt " + std::to_string(parent_event) + ": " +
              std::to_string(queued) + " fragments queued" +
              (dropped ? ", " + std::to_string(dropped) + " dropped" : "");
  server_->post_event(std::move(e));
}

void LiveServe::step_finished(const train::StepReport& s) {
  step_ = s.batch + 1;
  server_->set_step(step_, attempts_);
}

void LiveServe::checkpoint_written(const std::string& path, std::int64_t next_batch) {
  live::Event e;
  e.kind = "checkpoint";
  e.message = "checkpoint written; resumes at batch " + std::to_string(next_batch);
  e.path = path;
  server_->post_event(std::move(e));
}

void LiveServe::restarting(std::int64_t live_bytes, std::int64_t threshold) {
  live::Event e;
  e.kind = "restart";
  e.message = "live bytes " + format_bytes(live_bytes) + " crossed " + format_bytes(threshold) +
              ": the process restarts from its checkpoint";
  server_->post_event(std::move(e));
  // The process is about to execv: give the agent's thread a moment to send the event.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

void LiveServe::restarting_before_oom(const std::string& why) {
  live::Event e;
  e.kind = "restart";
  e.message = "checkpoint before the forecast OOM (" + why + "): the process restarts from its checkpoint";
  if (step_ >= 0) e.step = step_;
  server_->post_event(std::move(e));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // as restarting(): the event goes out first
}

}  // namespace oomscope::demo
