// `oomscope-cli diff A B [--top N] [--categories FILE] [--json FILE|-]`: what changed between two PyTorch
// allocator snapshots (or two Kineto traces, two JAX memory profiles, two live recordings).

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "app/cli/command_documents.h"
#include "core/snapshot/category_rules.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

struct DiffOptions {
  std::vector<std::string> files = std::vector<std::string>(2);
  std::optional<std::string> json_path;
  std::size_t top = 25;
  std::optional<std::string> categories;
};

int run_diff(const DiffOptions& o) {
  const std::optional<std::string>& json_path = o.json_path;
  NullProgress none;
  std::optional<snapshot::CategoryRules> rules;
  if (o.categories) rules = snapshot::CategoryRules::read(*o.categories);
  const Rendered d = diff_document(o.files[0], o.files[1], o.top, none, {}, rules ? &*rules : nullptr);
  if (json_path && *json_path == "-") {
    std::cout << d.json.dump(2) << "\n";
    return 0;
  }
  std::cout << d.text;
  if (json_path) {
    std::ofstream out(*json_path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(ErrorKind::Io, *json_path, "cannot open the JSON file for writing");
    out << d.json.dump(2) << "\n";
    if (!out.flush()) throw Error(ErrorKind::Io, *json_path, "cannot write the JSON file");
  }
  return 0;
}

Runner define_diff(CLI::App& app) {
  auto o = std::make_shared<DiffOptions>();
  app.footer(
      "Compares two PyTorch allocator snapshots (torch.cuda.memory._dump_snapshot): reserved, allocated and\n"
      "peak memory, the peak's composition by category, and the allocation sites (innermost user frame)\n"
      "and categories whose bytes at the peak changed most (JSON: sites). A is the baseline, B the\n"
      "changed run. Categories: docs/categories.md. Two Kineto traces (profile_memory) are compared by\n"
      "their peaks, capacity and OOM events (their events carry no stacks, so no sites), two JAX device\n"
      "memory profiles (.prof) by live bytes by kind and Python line (one moment each: no peak), two live\n"
      "recordings (watch --record) per rank: peaks, capacity, OOM events and steps, aligned by step, and\n"
      "each run's verdict (no stacks in a recording: no sites, and --categories is refused).");
  app.add_option("A", o->files[0],
                 "the baseline snapshot (.pickle), Kineto trace, JAX memory profile or live\n"
                 "recording")
      ->required()
      ->type_name("FILE");
  app.add_option("B", o->files[1], "the changed run's file, of A's kind")->required()->type_name("FILE");
  add_count(app, "--top", o->top, "allocation sites to list (default 25)");
  app.add_option("--categories", o->categories,
                 "categorise live memory by the regular expressions in FILE first\n"
                 "(TARGET REGEX -> CATEGORY a line; docs/categories.md)")
      ->type_name("FILE");
  app.add_option("--json", o->json_path,
                 "also write the diff as JSON to FILE, or only JSON to stdout with '-'")
      ->type_name("FILE");
  return [o] { return run_diff(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{
    "diff", "compare two runs: snapshots (totals, peak by category and site), traces, profiles or recordings",
    define_diff});

}  // namespace oomscope::cli
