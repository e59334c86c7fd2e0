// oomscope-demo-trainer: split-and-retry under a memory budget on real LibTorch tensors.
// The observer that watches the run is attached in one place below (add a live view beside the printer).

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>

#include "app/demo-trainer/live_serve.h"
#include "app/demo-trainer/options.h"
#include "core/train/atomic_file.h"
#include "core/train/calibrate.h"
#include "core/train/print_observer.h"
#include "core/train/trainer.h"
#include "core/util/error.h"

int main(int argc, char** argv) {
  using namespace oomscope;
  const std::vector<std::string> args(argv + 1, argv + argc);
  demo::Options opt;
  try {
    opt = demo::parse_options(args);
  } catch (const demo::UsageError& e) {
    std::cerr << "oomscope-demo-trainer: " << e.message << "\n" << demo::kUsage;
    return 2;
  }
  if (opt.help) {
    std::cout << demo::kUsage;
    return 0;
  }
  if (opt.calibrate) {
    try {
      train::ModelConfig mc = opt.trainer.model;
      mc.init_seed = mc.scene_seed = opt.trainer.seed;
      const auto c = train::calibrate(mc, opt.calibrate_points, 3, std::cout);
      train::write_file_atomic(opt.calibrate_out, train::calibration_json(c));
      std::cout << "model file: " << opt.calibrate_out << " (fixed " << c.fixed_bytes << " bytes, "
                << c.bytes_per_point << " bytes/point, fit within " << c.max_bytes_error * 100 << " %; "
                << c.time_fixed_s * 1e3 << " ms + " << c.time_per_point_s * 1e6 << " us/point)\n";
      return 0;
    } catch (const Error& e) {
      std::cerr << "oomscope-demo-trainer: " << e.what() << "\n";
      return 1;
    }
  }

  // The observer: attach more (a live view) with observers.add(...).
  train::PrintObserver printer(std::cout, !opt.quiet);
  train::FanoutObserver observers;
  observers.add(&printer);
  std::unique_ptr<demo::LiveServe> live;
  if (!opt.serve.empty() || !opt.metrics.empty()) {
    try {
      live = std::make_unique<demo::LiveServe>(opt.serve.empty() ? "0" : opt.serve, opt.trainer.budget, args,
                                               opt.metrics, opt.job);
    } catch (const Error& e) {
      std::cerr << "oomscope-demo-trainer: cannot serve live stats: " << e.what() << "\n";
      return 1;
    }
    observers.add(live.get());
  }

  // --restart-above: re-execute this binary with the same arguments plus --resume.
  const train::RestartFn restart = [&] {
    std::vector<std::string> again(argv, argv + argc);
    if (std::find(again.begin() + 1, again.end(), "--resume") == again.end()) again.push_back("--resume");
    std::vector<char*> cargv;
    for (auto& s : again) cargv.push_back(s.data());
    cargv.push_back(nullptr);
    std::cout.flush();
    ::execv("/proc/self/exe", cargv.data());
  };
  const auto result = train::run_trainer(opt.trainer, &observers, std::cout, restart);
  if (result.exit_code != 0) std::cerr << "oomscope-demo-trainer: " << result.error << "\n";
  return result.exit_code;
}
