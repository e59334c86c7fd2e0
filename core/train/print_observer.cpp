#include "core/train/print_observer.h"

#include <cstdio>
#include <ostream>

#include "core/util/bytes.h"

namespace oomscope::train {

void PrintObserver::batch_started(std::int64_t batch, std::int64_t points, std::int64_t scenes) {
  out_ << "batch " << batch << ": " << scenes << " scene(s), " << format_bytes_exact(points) << " points\n";
}

void PrintObserver::attempt_finished(const AttemptReport& a) {
  if (!attempts_) return;
  char ms[64];
  std::snprintf(ms, sizeof ms, "%.1f ms (cpu %.1f)", double(a.duration_ns) / 1e6, double(a.cpu_ns) / 1e6);
  out_ << "  #" << a.event_id << " " << std::string(static_cast<std::size_t>(a.depth) * 2, ' ')
       << sim::to_string(a.origin) << " " << format_bytes_exact(a.points)
       << " points: " << sim::to_string(a.outcome);
  if (a.outcome != sim::Outcome::Dropped) out_ << ", " << format_bytes(a.bytes_needed) << ", " << ms;
  if (a.outcome == sim::Outcome::Ok) {
    char loss[32];
    std::snprintf(loss, sizeof loss, "%.4f", a.loss);
    out_ << ", loss " << loss;
  }
  if (!a.error.empty()) {
    const auto eol = a.error.find('\n');
    out_ << " (" << a.error.substr(0, eol) << ")";
  }
  out_ << "\n";
}

void PrintObserver::split(std::int64_t parent, const char* kind, int queued, int dropped) {
  if (!attempts_) return;
  out_ << "  split #" << parent << " by " << kind << ": " << queued << " queued";
  if (dropped) out_ << ", " << dropped << " dropped at the floor";
  out_ << "\n";
}

void PrintObserver::step_finished(const StepReport& s) {
  char loss[32];
  std::snprintf(loss, sizeof loss, "%.4f", s.loss);
  out_ << "step " << s.batch << ": " << s.attempts << " attempt(s), " << s.ooms << " oom; "
       << format_bytes_exact(s.points_applied) << " of " << format_bytes_exact(s.points)
       << " points reached the optimizer; loss " << loss << "; " << double(s.duration_ns) / 1e9 << " s\n";
  out_.flush();
}

}  // namespace oomscope::train
