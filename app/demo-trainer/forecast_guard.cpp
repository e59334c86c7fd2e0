// The demo trainer's --checkpoint-before-oom (see forecast_guard.h).

#include "app/demo-trainer/forecast_guard.h"

#include <chrono>
#include <utility>

#include "core/live/client/forecast.h"
#include "core/train/budget_allocator.h"

namespace oomscope::demo {

ForecastGuard::ForecastGuard(std::int64_t budget_bytes, std::int64_t within_steps) : within_(within_steps) {
  live::Hello hello;
  hello.backend = "cpu";
  hello.device = "budgeted CPU allocator";
  hello.total_bytes = budget_bytes;
  store_.on_hello(0, hello);
}

void ForecastGuard::step_finished(const train::StepReport& step) {
  const train::AllocatorStats a = train::allocator_stats();
  if (!a.installed) return;
  live::Sample s;
  s.t = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count();
  s.set(live::Field::Step, step.batch + 1);
  s.set(live::Field::Allocated, a.live_bytes);
  s.set(live::Field::PeakAllocated, a.peak_bytes);
  s.set(live::Field::Ooms, a.oom_count);
  store_.on_sample(0, s);
  const live::Forecast f = live::forecast_rank(store_.ranks()[0]);
  if (f.state == live::ForecastState::Oom && f.oom_at_step && *f.oom_at_step - f.at_step <= within_)
    reason_ = live::forecast_sentence(f);
}

std::string ForecastGuard::take_reason() { return std::exchange(reason_, {}); }

}  // namespace oomscope::demo
