// oomscope-demo-trainer: split-and-retry under a memory budget on real LibTorch tensors.
// The observer that watches the run is attached in one place below (add a live view beside the printer).

#include <unistd.h>

#include <CLI/CLI.hpp>  // the whole library once: CLI11 defines its formatter and config readers here
#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "app/demo-trainer/forecast_guard.h"
#include "app/demo-trainer/live_serve.h"
#include "app/demo-trainer/options.h"
#include "core/train/calibrate.h"
#include "core/train/print_observer.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

int main(int argc, char** argv) {
  using namespace oomscope;
  const std::vector<std::string> args(argv + 1,
                                      argv + argc);  // the command line, as the live agent reports it
  CLI::App app{"", "oomscope-demo-trainer"};
  std::vector<std::string> given;
  demo::define_options(app, given);
  demo::Options opt;
  try {
    app.parse(argc, argv);
    opt = demo::parse_options(given);
  } catch (const CLI::CallForHelp&) {
    std::string help = app.help();
    if (!help.empty() && help.back() != '\n') help += '\n';
    std::cout << help;
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "oomscope-demo-trainer: " << e.what()
              << "\n`oomscope-demo-trainer --help` lists every option.\n";
    return 2;
  } catch (const demo::UsageError& e) {
    std::cerr << "oomscope-demo-trainer: " << e.message
              << "\n`oomscope-demo-trainer --help` lists every option.\n";
    return 2;
  }
  if (opt.calibrate) {
    try {
      train::ModelConfig mc = opt.trainer.model;
      mc.init_seed = mc.scene_seed = opt.trainer.seed;
      const auto c = train::calibrate(mc, opt.calibrate_points, 3, std::cout);
      write_file_atomically(opt.calibrate_out, train::calibration_json(c));
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

  // --checkpoint-before-oom N: the forecast over the run's own steps asks for the checkpoint and restart.
  std::unique_ptr<demo::ForecastGuard> guard;
  if (opt.checkpoint_before_oom > 0) {
    guard = std::make_unique<demo::ForecastGuard>(opt.trainer.budget, opt.checkpoint_before_oom);
    observers.add(guard.get());
    opt.trainer.restart_check = [&guard] { return guard->take_reason(); };
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
