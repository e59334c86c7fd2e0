// `oomscope-cli bench report`: times `report` (read + plan + runtime + diagnosis + text) on real captures and
// on a big capture made by scaling a real one up, with the peak memory of the run, against the same decoding
// and totals done by a Python protobuf reader (tests/bench/python_reader.py) on the same file.
//
// Each C++ run happens in a forked child so that its max RSS (getrusage via wait4) is its own; the Python
// reader runs as a subprocess and reports the time of its read + parse + loop.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/bench.h"
#include "app/cli/bench_support.h"
#include "core/analysis/report/report.h"
#include "core/analysis/report/report_text.h"
#include "core/capture/reader.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

namespace {

struct Run {
  bool ok = false;
  double seconds = 0;
  long max_rss_kib = 0;
  std::string error;
};

Run run_report_in_child(const std::string& file) {
  const ChildRun c = run_in_child([&file]() -> std::pair<int, std::string> {
    try {
      const auto t0 = std::chrono::steady_clock::now();
      analysis::ReportOptions options;
      std::ostringstream text;
      if (file.ends_with(".hlo_proto.pb")) {
        const auto module = capture::read_hlo_proto_file(file);
        analysis::write_report_text(text, analysis::build_plan_report(module, file, 0, options), options.top);
      } else {
        const auto capture = capture::read_capture(file);
        analysis::write_report_text(text, analysis::build_host_report(*capture, options), options.top);
      }
      return {0,
              std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())};
    } catch (const std::exception& e) {
      return {1, std::string("error: ") + e.what()};
    }
  });
  Run r;
  r.max_rss_kib = c.max_rss_kib;
  r.ok = c.ok();
  if (r.ok)
    r.seconds = std::stod(c.message);
  else
    r.error = c.message.empty() ? "the report process died" : c.message;
  return r;
}

Run run_python(const fs::path& script, const std::string& file) {
  int status = 0;
  long rss = 0;
  const std::string out = run_process({"/usr/bin/python3", script.string(), file}, status, rss);
  Run r;
  r.max_rss_kib = rss;
  if (status != 0) {
    r.error = "python_reader.py failed";
    return r;
  }
  try {
    r.seconds = nlohmann::json::parse(out).at("seconds").get<double>();
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = std::string("cannot read python_reader.py output: ") + e.what();
  }
  return r;
}

struct Row {
  std::string file;
  std::uintmax_t size = 0;
  Run cpp, py;
};

// The best of `repeat` runs of each (the machine is shared; the minimum is the least disturbed).
Row measure(const std::string& file, const fs::path& py_script, bool python, int repeat) {
  Row row;
  row.file = file;
  std::error_code ec;
  row.size = fs::file_size(file, ec);
  for (int i = 0; i < repeat; ++i) {
    const Run c = run_report_in_child(file);
    if (i == 0 || !c.ok || (row.cpp.ok && c.seconds < row.cpp.seconds)) row.cpp = c;
    if (!c.ok) break;
    if (!python || file.ends_with(".hlo_proto.pb")) continue;
    const Run p = run_python(py_script, file);
    if (i == 0 || !p.ok || (row.py.ok && p.seconds < row.py.seconds)) row.py = p;
    if (!p.ok) python = false;
  }
  return row;
}

void print(const Row& r) {
  const double mib = static_cast<double>(r.size) / (1024.0 * 1024.0);
  std::printf("%-56s %9.2f MiB  ", fs::path(r.file).filename().string().c_str(), mib);
  if (!r.cpp.ok) {
    std::printf("C++ failed: %s\n", r.cpp.error.c_str());
    return;
  }
  const double rss_mib = static_cast<double>(r.cpp.max_rss_kib) / 1024.0;
  std::printf("C++ %8.3f s  RSS %8.1f MiB (%5.2fx file)", r.cpp.seconds, rss_mib,
              mib > 0 ? rss_mib / mib : 0.0);
  if (r.py.ok)
    std::printf("  Python %8.3f s  ratio %6.1fx", r.py.seconds,
                r.cpp.seconds > 0 ? r.py.seconds / r.cpp.seconds : 0.0);
  else if (!r.py.error.empty())
    std::printf("  Python failed: %s", r.py.error.c_str());
  std::printf("\n");
  std::fflush(stdout);  // long runs: show each row as it is measured
}

struct ReportBenchOptions {
  std::vector<std::string> files;
  std::optional<std::string> scale_to;
  std::optional<std::string> source;
  bool keep = false, no_python = false;
  int repeat = 3;
};

int run_bench_report(const ReportBenchOptions& o) {
  std::vector<std::string> files = o.files;
  const std::optional<std::string>& scale_to = o.scale_to;
  const std::optional<std::string>& source = o.source;
  const bool keep = o.keep, python = !o.no_python;
  const int repeat = o.repeat;
  const fs::path src = find_source_tree("tests/bench/python_reader.py");
  const fs::path py_script = src / "tests/bench/python_reader.py";
  if (files.empty() && !scale_to) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(src / "tests/data", ec))
      if (e.path().string().ends_with(".xplane.pb") && !e.path().filename().string().starts_with("CORRUPT"))
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw UsageError{"no FILES given and no captures found in " + (src / "tests/data").string()};
  }
  std::printf("%-56s %13s  %s\n", "capture", "size",
              "report (read+plan+runtime+diagnosis+text) / python_reader.py");
  for (const std::string& f : files) print(measure(f, py_script, python, repeat));
  if (!scale_to) return 0;

  char folder_template[] = "/tmp/oomscope-bench-XXXXXX";
  if (!mkdtemp(folder_template))
    throw Error(ErrorKind::Io, "/tmp", "cannot create a folder for the big capture");
  const fs::path big = fs::path(folder_template) / "big.xplane.pb";
  const std::string from =
      source ? *source : (src / "tests/data/tf2_gpu_v100x8_bert_multiworker.xplane.pb").string();
  int status = 0;
  long rss = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string made =
      run_process({"/usr/bin/python3", (src / "tests/bench/make_big_capture.py").string(), big.string(),
                   "--size", *scale_to, "--source", from},
                  status, rss);
  if (status != 0) throw Error(ErrorKind::Io, big.string(), "make_big_capture.py failed: " + made);
  std::printf("\nscaled capture (%.1f s to make): %s",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), made.c_str());
  const Row row = measure(big.string(), py_script, python, 1);
  print(row);
  if (row.cpp.ok) {
    const double size = static_cast<double>(row.size);
    const double rss_bytes = static_cast<double>(row.cpp.max_rss_kib) * 1024.0;
    std::printf("target: under 5 s ........................ %s (%.3f s)\n",
                row.cpp.seconds < 5 ? "PASS" : "FAIL", row.cpp.seconds);
    std::printf("target: max RSS under 2x the file ........ %s (%.2fx)\n",
                rss_bytes < 2 * size ? "PASS" : "FAIL", rss_bytes / size);
    if (row.py.ok)
      std::printf("target: at least 20x the Python reader ... %s (%.1fx)\n",
                  row.py.seconds >= 20 * row.cpp.seconds ? "PASS" : "FAIL", row.py.seconds / row.cpp.seconds);
  }
  std::error_code ec;
  if (keep)
    std::printf("kept %s\n", big.string().c_str());
  else
    fs::remove_all(folder_template, ec);
  return 0;
}

Runner define_bench_report(CLI::App& app) {
  auto o = std::make_shared<ReportBenchOptions>();
  app.footer(
      "Times `report` on each FILE (default: the real captures in tests/data) and, with --scale-to, on a\n"
      "capture of about BYTES made from --source by tests/bench/make_big_capture.py in a fresh folder under\n"
      "/tmp (deleted afterwards unless --keep). For each file it prints the C++ time and max RSS, and the "
      "time\n"
      "of tests/bench/python_reader.py (Debian's python3-protobuf) doing the same decoding and totals, and\n"
      "their ratio. Targets for the scaled file: under 5 s, max RSS under 2x the file, at least 20x the\n"
      "Python reader. Real captures: best of --repeat runs; the scaled capture: one run of each.");
  app.add_option("FILES", o->files, "captures to time (default: the real captures in tests/data)")
      ->type_name("FILE");
  app.add_option_function<std::string>(
         "--scale-to", [o](const std::string& v) { o->scale_to = v; },
         "also time a capture of about BYTES (1G, 512M, ...)")
      ->type_name("BYTES");
  app.add_option_function<std::string>(
         "--source", [o](const std::string& v) { o->source = v; },
         "the capture to scale up (default "
         "tests/data/tf2_gpu_v100x8_bert_multiworker.xplane.pb)")
      ->type_name("FILE");
  app.add_option("--repeat", o->repeat, "runs per real capture, the best kept (default 3)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  app.add_flag("--keep", o->keep, "keep the scaled capture");
  app.add_flag("--no-python", o->no_python, "skip the Python reader");
  return [o] { return run_bench_report(*o); };
}

}  // namespace

OOMSCOPE_BENCH(Command{"report",
                       "time `report` on real and scaled-up captures against a Python protobuf reader",
                       define_bench_report});

}  // namespace oomscope::cli
