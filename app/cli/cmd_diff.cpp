// `oomscope-cli diff A B [--top N] [--json FILE|-]`: what changed between two PyTorch allocator snapshots.

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command.h"
#include "core/snapshot/file_kind.h"
#include "core/snapshot/snapshot_diff.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

std::shared_ptr<const snapshot::Snapshot> load(const std::string& path) {
  const snapshot::FileKindInfo kind = snapshot::detect_file_kind(path);
  if (kind.kind != snapshot::FileKind::TorchSnapshot) {
    if (kind.kind == snapshot::FileKind::Unknown) snapshot::throw_unknown_kind(path, kind);
    throw Error(ErrorKind::NotACapture, path,
                "diff compares PyTorch memory snapshots (.pickle); this looks like " + kind.looks_like);
  }
  return snapshot::read_snapshot(path);
}

struct DiffOptions {
  std::vector<std::string> files = std::vector<std::string>(2);
  std::optional<std::string> json_path;
  std::size_t top = 25;
};

int run_diff(const DiffOptions& o) {
  const std::vector<std::string>& files = o.files;
  const std::optional<std::string>& json_path = o.json_path;
  const std::size_t top = o.top;
  const auto a = load(files[0]);
  const auto b = load(files[1]);
  const auto ra = snapshot::analyse_snapshot(*a, top);
  const auto rb = snapshot::analyse_snapshot(*b, top);
  const snapshot::SnapshotDiff d = snapshot::diff_snapshots(*a, ra, *b, rb, top);
  if (json_path && *json_path == "-") {
    std::cout << snapshot::diff_json(d).dump(2) << "\n";
    return 0;
  }
  snapshot::write_diff_text(std::cout, d);
  if (json_path) {
    std::ofstream out(*json_path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(ErrorKind::Io, *json_path, "cannot open the JSON file for writing");
    out << snapshot::diff_json(d).dump(2) << "\n";
    if (!out.flush()) throw Error(ErrorKind::Io, *json_path, "cannot write the JSON file");
  }
  return 0;
}

Runner define_diff(CLI::App& app) {
  auto o = std::make_shared<DiffOptions>();
  app.footer(
      "Compares two PyTorch allocator snapshots (torch.cuda.memory._dump_snapshot): reserved, allocated and\n"
      "peak memory, the peak's composition by category, and the allocation sites (innermost user frame)\n"
      "whose bytes at the peak changed most. A is the baseline, B the changed run.");
  app.add_option("A", o->files[0], "the baseline snapshot (.pickle)")->required()->type_name("FILE");
  app.add_option("B", o->files[1], "the changed run's snapshot (.pickle)")->required()->type_name("FILE");
  add_count(app, "--top", o->top, "allocation sites to list (default 25)");
  app.add_option("--json", o->json_path,
                 "also write the diff as JSON to FILE, or only JSON to stdout with '-'")
      ->type_name("FILE");
  return [o] { return run_diff(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{
    "diff", "compare two PyTorch allocator snapshots: totals, peak by category and by allocation site",
    define_diff});

}  // namespace oomscope::cli
