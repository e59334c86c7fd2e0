// `oomscope-cli bench snapshot`: opens PyTorch allocator snapshots (read + model + Active Memory Timeline
// + analysis, what the GUI computes before it shows the first page) in a forked child, with its time and
// max RSS, against Python's own pickle.load of the same file (restricted to data) in a subprocess.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/cli/bench.h"
#include "app/cli/bench_support.h"
#include "core/snapshot/snapshot_analysis.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/bytes.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

namespace {

struct Run {
  bool ok = false;
  double read_s = 0, total_s = 0;
  double cpu_s = 0;  // user + system CPU of the child (the machine may be shared: wall time waits for a core)
  long rss_kib = 0;
  std::string error;
};

Run open_in_child(const std::string& file) {
  const ChildRun c = run_in_child([&file]() -> std::pair<int, std::string> {
    try {
      const auto t0 = std::chrono::steady_clock::now();
      const auto snap = snapshot::read_snapshot(file);
      const auto t1 = std::chrono::steady_clock::now();
      const auto report = snapshot::analyse_snapshot(*snap, 25);
      const auto t2 = std::chrono::steady_clock::now();
      char msg[256];
      std::snprintf(msg, sizeof msg, "%.6f %.6f %lld", std::chrono::duration<double>(t1 - t0).count(),
                    std::chrono::duration<double>(t2 - t0).count(),
                    static_cast<long long>(report.peak_bytes()));
      return {0, msg};
    } catch (const std::exception& e) {
      return {1, std::string("error: ") + e.what()};
    }
  });
  Run r;
  r.rss_kib = c.max_rss_kib;
  r.cpu_s = c.cpu_s;
  r.ok = c.ok();
  if (r.ok)
    std::sscanf(c.message.c_str(), "%lf %lf", &r.read_s, &r.total_s);
  else
    r.error = c.message.empty() ? "the child died" : c.message;
  return r;
}

void measure(const std::string& file, const fs::path& src, bool python) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  const Run c = open_in_child(file);
  std::printf("%s (%s)\n", file.c_str(), format_bytes(static_cast<std::uint64_t>(size)).c_str());
  if (!c.ok) {
    std::printf("  oomscope: FAILED: %s\n", c.error.c_str());
    return;
  }
  const double rss = static_cast<double>(c.rss_kib) * 1024.0;
  std::printf(
      "  oomscope: read %.3f s, read + timeline + analysis %.3f s wall (%.3f s CPU), max RSS %s (%.2fx the "
      "file)\n",
      c.read_s, c.total_s, c.cpu_s, format_bytes(static_cast<std::int64_t>(rss)).c_str(),
      size ? rss / static_cast<double>(size) : 0.0);
  if (!python) return;
  int status = 0;
  long py_rss = 0;
  double py_cpu = 0;
  const std::string out =
      run_process({"/usr/bin/python3", (src / "tests/bench/python_pickle_load.py").string(), file}, status,
                  py_rss, &py_cpu);
  try {
    const double s = nlohmann::json::parse(out).at("seconds").get<double>();
    std::printf(
        "  python pickle.load (globals refused): %.3f s wall (process %.3f s CPU), max RSS %s (%.2fx the "
        "file); oomscope open is %.1fx %s\n",
        s, py_cpu, format_bytes(static_cast<std::int64_t>(py_rss) * 1024).c_str(),
        size ? static_cast<double>(py_rss) * 1024.0 / static_cast<double>(size) : 0.0,
        c.total_s > s ? c.total_s / s : s / c.total_s, c.total_s > s ? "slower" : "faster");
  } catch (const std::exception&) {
    std::printf("  python pickle.load: failed (exit %d)\n", status);
  }
}

struct SnapshotBenchOptions {
  std::vector<std::string> files;
  std::string scale_to;
  std::string source;
  bool keep = false, no_python = false;
};

int run_bench(const SnapshotBenchOptions& o) {
  std::vector<std::string> files = o.files;
  const std::uint64_t scale_to = o.scale_to.empty() ? 0 : parse_bench_size("--scale-to", o.scale_to);
  const bool keep = o.keep, python = !o.no_python;
  const fs::path src = find_source_tree("tests/bench/python_pickle_load.py");
  const std::string source =
      o.source.empty() ? (src / "tests/data/torch_snapshot_decomfl_windows_with_trace.pickle").string()
                       : o.source;
  if (files.empty() && !scale_to)
    for (const auto& e : fs::directory_iterator(src / "tests/data"))
      if (e.path().extension() == ".pickle") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) measure(f, src, python);
  if (scale_to) {
    const fs::path dir = fs::temp_directory_path() / ("oomscope-bench-snapshot-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string big = (dir / "big.pickle").string();
    std::printf("making a %s snapshot from %s (tests/bench/make_big_snapshot.py)...\n",
                format_bytes(scale_to).c_str(), source.c_str());
    std::fflush(stdout);
    int status = 0;
    long rss = 0;
    run_process({"/usr/bin/python3", (src / "tests/bench/make_big_snapshot.py").string(), source, big,
                 std::to_string(scale_to)},
                status, rss);
    if (status != 0) {
      std::printf("make_big_snapshot.py failed (exit %d)\n", status);
    } else {
      measure(big, src, python);
    }
    if (!keep)
      fs::remove_all(dir);
    else
      std::printf("kept %s\n", big.c_str());
  }
  return 0;
}

Runner define_bench_snapshot(CLI::App& app) {
  auto o = std::make_shared<SnapshotBenchOptions>();
  app.footer(
      "Opens each FILE (default: the real snapshots in tests/data) as the GUI does: read + model + Active\n"
      "Memory Timeline + analysis, in a forked child (time and max RSS). With --scale-to, first makes a\n"
      "snapshot of about BYTES from --source with tests/bench/make_big_snapshot.py (keeping its structure) "
      "in\n"
      "/tmp, deleted afterwards unless --keep. Each file is also loaded by Python's pickle.load with an\n"
      "Unpickler that refuses globals (tests/bench/python_pickle_load.py). Targets for a 1 GB snapshot: "
      "open\n"
      "under 10 s, max RSS under 1.5x the file.");
  app.add_option("FILES", o->files, "snapshots to open (default: the real snapshots in tests/data)")
      ->type_name("FILE");
  app.add_option("--scale-to", o->scale_to, "also open a snapshot of about BYTES (1G, 512M, ...)")
      ->type_name("BYTES");
  app.add_option("--source", o->source,
                 "the snapshot to scale up (default "
                 "tests/data/torch_snapshot_decomfl_windows_with_trace.pickle)")
      ->type_name("FILE");
  app.add_flag("--keep", o->keep, "keep the scaled snapshot");
  app.add_flag("--no-python", o->no_python, "skip Python's pickle.load");
  return [o] { return run_bench(*o); };
}

}  // namespace

OOMSCOPE_BENCH(Command{
    "snapshot", "open PyTorch snapshots (real ones, or one scaled up to --scale-to) vs Python's pickle.load",
    define_bench_snapshot});

}  // namespace oomscope::cli
