#pragma once
// The small sink every long core job reports progress through. Jobs also take a std::stop_token and
// throw oomscope::Cancelled when it is requested. Sinks may be called from a worker thread; the GUI's
// sink forwards to the UI thread, the CLI's prints to stderr.

#include <string_view>

namespace oomscope {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // fraction in [0, 1]; stage is a short human label ("reading planes", "parsing HLO").
  virtual void report(double fraction, std::string_view stage) = 0;
};

class NullProgress final : public ProgressSink {
 public:
  void report(double, std::string_view) override {}
};

}  // namespace oomscope
