// `oomscope-cli whatif SNAPSHOT [--capacity BYTES] [--set key:value]... [--json FILE|-]`: replays a PyTorch
// snapshot's allocation trace through the caching allocator model (core/allocator) under the recorded
// settings, checked against the recording, and under other settings and capacities
// (docs/allocator-model.md).

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/whatif_document.h"
#include "core/util/atomic_file.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

namespace {

struct WhatIfCommandOptions {
  std::string path;
  allocator::WhatIfOptions whatif;
  std::optional<std::string> json_path;
};

int run_whatif(const WhatIfCommandOptions& o) {
  NullProgress progress;
  const Rendered out = whatif_document(o.path, o.whatif, progress, {});
  const auto json_text = [&] {
    return out.json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  };
  if (o.json_path && *o.json_path == "-") {
    std::cout << json_text();
    return 0;
  }
  std::cout << out.text << std::flush;
  if (o.json_path) {
    const WriteResult written = write_file_atomically(*o.json_path, json_text());
    if (written.replaced)
      std::cerr << "oomscope-cli: replaced the existing " << terminal_safe(*o.json_path) << "\n";
  }
  return 0;
}

Runner define_whatif(CLI::App& app) {
  auto o = std::make_shared<WhatIfCommandOptions>();
  app.footer(
      "Replays the allocation trace of a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot) through "
      "a\n"
      "model of PyTorch's CUDA caching allocator. The replay with the snapshot's own allocator_settings is\n"
      "checked against what the allocator recorded (segment events, block addresses, final segments); other\n"
      "scenarios are predictions only when that check passes. Without --capacity or --set it runs the "
      "standard\n"
      "scenarios: the recorded run, each single setting that can matter, and the smallest capacity without "
      "an\n"
      "out-of-memory error under the recorded and the best setting. Every figure is derived by replay.");
  app.add_option("SNAPSHOT", o->path, "the snapshot (.pickle, or its JSON form)")
      ->required()
      ->type_name("FILE");
  app.add_option_function<std::string>(
         "--capacity", [o](const std::string& text) { o->whatif.capacity = parse_whatif_capacity(text); },
         "the most the allocator may reserve (integer bytes, or with a unit: 24GiB, 80GB;\n"
         "docs/byte-sizes.md); default: as recorded (unlimited, or what an oom entry says)")
      ->type_name("BYTES");
  app.add_option_function<std::vector<std::string>>(
         "--set",
         [o](const std::vector<std::string>& v) {
           check_whatif_settings(v);
           o->whatif.settings = v;
         },
         "change one allocator setting as PYTORCH_CUDA_ALLOC_CONF spells it (repeatable):\n"
         "expandable_segments:True, max_split_size_mb:N, roundup_power2_divisions:N,\n"
         "garbage_collection_threshold:F, max_non_split_rounding_mb:N")
      ->type_name("KEY:VALUE");
  app.add_option_function<std::int64_t>(
         "--device", [o](std::int64_t d) { o->whatif.device = d; },
         "the device whose trace to replay (default: the one with the longest trace)")
      ->type_name("N");
  app.add_option_function<std::string>(
         "--json",
         [o](const std::string& path) {
           if (path.empty())
             throw CLI::ValidationError("--json needs a file name, or '-' for standard output");
           o->json_path = path;
         },
         "also write the result as JSON to FILE (docs/allocator-model.md), or only JSON to stdout with '-'")
      ->type_name("FILE");
  return [o] { return run_whatif(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"whatif",
                         "replay a PyTorch snapshot's trace under other allocator settings and capacities",
                         define_whatif});

}  // namespace oomscope::cli
