// Each rank's steps in a live recording (recording_steps.h).

#include "core/live/client/recording_steps.h"

#include <algorithm>

#include "core/live/client/replay.h"

namespace oomscope::live {

namespace {

// Each rank's steps as the recording replays: the step of the samples at the peaks (the peaks taken as
// recording_ranks.cpp takes them, so the two agree) and the largest sampled figures at each step.
class StepCollector final : public LiveSink {
 public:
  void on_endpoint(int, const std::string&) override {}
  void on_hello(int, const Hello&) override {}
  void on_sample(int rank, const Sample& s) override {
    Rank& r = ranks_[rank];
    const std::optional<std::int64_t> step =
        s.has(Field::Step) ? std::optional<std::int64_t>(s.get(Field::Step)) : std::nullopt;
    for (Field a : {Field::Allocated, Field::PeakAllocated})
      if (s.has(a) && (!r.allocated || s.get(a) > *r.allocated)) {
        r.allocated = s.get(a);
        r.steps.step_at_peak_allocated = step;
      }
    if (s.has(Field::Reserved) && (!r.reserved || s.get(Field::Reserved) > *r.reserved)) {
      r.reserved = s.get(Field::Reserved);
      r.steps.step_at_peak_reserved = step;
    }
    if (!step) return;
    RecordingRankSteps& st = r.steps;
    ++st.samples_with_step;
    st.first_step = std::min(st.first_step.value_or(*step), *step);
    st.last_step = std::max(st.last_step.value_or(*step), *step);
    RecordingStepPeak& p = st.by_step[*step];
    if (s.has(Field::Allocated))
      p.allocated = std::max(p.allocated.value_or(s.get(Field::Allocated)), s.get(Field::Allocated));
    if (s.has(Field::Reserved))
      p.reserved = std::max(p.reserved.value_or(s.get(Field::Reserved)), s.get(Field::Reserved));
  }
  void on_event(int, const Event&) override {}
  void on_shapes(int, const Shapes&) override {}
  void on_disconnected(int, std::int64_t, const std::string&) override {}
  void on_connected(int, std::int64_t) override {}
  void on_bad_line(int, std::int64_t, const std::string&) override {}

  std::map<int, RecordingRankSteps> take() && {
    std::map<int, RecordingRankSteps> out;
    for (auto& [rank, r] : ranks_) out[rank] = std::move(r.steps);
    return out;
  }

 private:
  struct Rank {
    std::optional<std::int64_t> allocated, reserved;
    RecordingRankSteps steps;
  };
  std::map<int, Rank> ranks_;
};

}  // namespace

std::map<int, RecordingRankSteps> read_recording_steps(const std::string& path, const std::stop_token& stop) {
  StepCollector collector;
  replay_recording(path, collector, stop);
  return std::move(collector).take();
}

}  // namespace oomscope::live
