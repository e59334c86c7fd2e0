#pragma once
// A progress sink that truncates a file the first time the reader reports progress: after the start was
// checked and the file mapped, before the scan reads the planes. The capture tests use it to shrink a file
// while it is read.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "core/util/progress.h"

namespace oomscope::capture::testing {

class TruncateOnProgress final : public oomscope::ProgressSink {
 public:
  TruncateOnProgress(std::string path, std::uint64_t to) : path_(std::move(path)), to_(to) {}
  void report(double, std::string_view) override {
    if (std::exchange(done_, true)) return;
    std::filesystem::resize_file(path_, to_);
  }

 private:
  std::string path_;
  std::uint64_t to_;
  bool done_ = false;
};

}  // namespace oomscope::capture::testing
