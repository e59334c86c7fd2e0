// `oomscope-cli diff A B [--top N] [--json FILE|-]`: what changed between two PyTorch allocator snapshots.

#include <charconv>
#include <fstream>
#include <iostream>

#include "app/cli/command.h"
#include "core/snapshot/file_kind.h"
#include "core/snapshot/snapshot_diff.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

const char kUsage[] =
    "usage: oomscope-cli diff A.pickle B.pickle [--top N] [--json FILE|-]\n"
    "\n"
    "Compares two PyTorch allocator snapshots (torch.cuda.memory._dump_snapshot): reserved, allocated and\n"
    "peak memory, the peak's composition by category, and the allocation sites (innermost user frame)\n"
    "whose bytes at the peak changed most. A is the baseline, B the changed run.\n"
    "\n"
    "  --top N         allocation sites to list (default 25)\n"
    "  --json FILE|-   also write the diff as JSON to FILE, or only JSON to stdout with '-'\n";

std::shared_ptr<const snapshot::Snapshot> load(const std::string& path) {
  const snapshot::FileKindInfo kind = snapshot::detect_file_kind(path);
  if (kind.kind != snapshot::FileKind::TorchSnapshot) {
    if (kind.kind == snapshot::FileKind::Unknown) snapshot::throw_unknown_kind(path, kind);
    throw Error(ErrorKind::NotACapture, path,
                "diff compares PyTorch memory snapshots (.pickle); this looks like " + kind.looks_like);
  }
  return snapshot::read_snapshot(path);
}

int run_diff(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::optional<std::string> json_path;
  std::size_t top = 25;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json" || a == "--top") {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      const std::string& v = args[++i];
      if (a == "--json") {
        json_path = v;
      } else {
        auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), top);
        if (ec != std::errc() || ptr != v.data() + v.size() || top == 0)
          throw UsageError{"--top: '" + v + "' is not a positive number"};
      }
    } else if (a.starts_with("--")) {
      throw UsageError{"unknown option " + a};
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 2) throw UsageError{"give exactly two snapshot files, A (baseline) and B"};
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

}  // namespace

OOMSCOPE_COMMAND(Command{
    "diff", "compare two PyTorch allocator snapshots: totals, peak by category and by allocation site",
    kUsage, run_diff});

}  // namespace oomscope::cli
