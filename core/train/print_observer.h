#pragma once
// Observers that need no LibTorch: one that prints what the trainer does, one that fans out to several
// (so that a live view can be attached beside the printer).

#include <iosfwd>
#include <vector>

#include "core/train/train_observer.h"

namespace oomscope::train {

// One line per attempt, split, step and checkpoint. `attempts`: false prints steps only.
class PrintObserver final : public TrainObserver {
 public:
  explicit PrintObserver(std::ostream& out, bool attempts = true) : out_(out), attempts_(attempts) {}
  void batch_started(std::int64_t batch, std::int64_t points, std::int64_t scenes) override;
  void attempt_finished(const AttemptReport& a) override;
  void split(std::int64_t parent, const char* kind, int queued, int dropped) override;
  void step_finished(const StepReport& s) override;

 private:
  std::ostream& out_;
  bool attempts_;
};

// Calls every observer added, in order. Does not own them.
class FanoutObserver final : public TrainObserver {
 public:
  void add(TrainObserver* o) {
    if (o) list_.push_back(o);
  }
  void batch_started(std::int64_t b, std::int64_t p, std::int64_t s) override {
    for (auto* o : list_) o->batch_started(b, p, s);
  }
  void attempt_finished(const AttemptReport& a) override {
    for (auto* o : list_) o->attempt_finished(a);
  }
  void out_of_memory(const AttemptReport& a, std::int64_t requested) override {
    for (auto* o : list_) o->out_of_memory(a, requested);
  }
  void split(std::int64_t p, const char* k, int q, int d) override {
    for (auto* o : list_) o->split(p, k, q, d);
  }
  void step_finished(const StepReport& s) override {
    for (auto* o : list_) o->step_finished(s);
  }
  void checkpoint_written(const std::string& path, std::int64_t next) override {
    for (auto* o : list_) o->checkpoint_written(path, next);
  }
  void restarting(std::int64_t live, std::int64_t threshold) override {
    for (auto* o : list_) o->restarting(live, threshold);
  }
  void restarting_before_oom(const std::string& why) override {
    for (auto* o : list_) o->restarting_before_oom(why);
  }

 private:
  std::vector<TrainObserver*> list_;
};

}  // namespace oomscope::train
