// `oomscope-cli bench hostile`: peak memory and time of `report` on crafted inputs (tests/hostile/
// make_hostile.py; the hlo-* kinds add to the source one module whose HloProto is SIZE bytes that would
// amplify in memory: it is skipped before it is parsed), against the reader's documented bound (8x the file +
// 64 MiB for its tables), and the time per GB of a capture joined to itself N times (every plane repeated)
// and of one whose copies differ (merged as one plane written in parts), to show that every stage is linear
// in planes.
//
// Each run happens in a forked child, so its max RSS (wait4) is its own.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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

struct Outcome {
  bool loaded = false;
  double seconds = 0;
  double cpu_seconds = 0;  // user + system, all threads: the figure that a busy machine does not inflate
  long max_rss_kib = 0;
  std::string message;
};

Outcome report_in_child(const std::string& file) {
  const ChildRun c = run_in_child([&file]() -> std::pair<int, std::string> {
    try {
      const auto capture = capture::read_capture(file);
      std::ostringstream text;
      analysis::write_report_text(text, analysis::build_host_report(*capture, {}), 25);
      return {0, "loaded"};
    } catch (const Error& e) {
      return {1, e.message()};
    } catch (const std::exception& e) {
      return {3, std::string("internal error: ") + e.what()};
    }
  });
  Outcome o;
  o.message = c.message;
  o.seconds = c.wall_s;
  o.max_rss_kib = c.max_rss_kib;
  o.cpu_seconds = c.cpu_s;
  o.loaded = c.ok();
  if (c.started && !WIFEXITED(c.status))
    o.message = "the process died (signal " + std::to_string(WTERMSIG(c.status)) + ")";
  return o;
}

void print_row(const std::string& what, std::uint64_t size, const Outcome& o) {
  const double mib = static_cast<double>(size) / (1 << 20);
  const double rss = static_cast<double>(o.max_rss_kib) / 1024.0;
  const double bound = 8 * mib + 64;
  std::string msg = o.message.substr(0, 70);
  const double gb = mib / 1024.0;
  std::printf(
      "%-22s %7.1f MiB %6.2f s %6.2f s CPU %7.2f s/GB (CPU %6.2f)  RSS %6.1f MiB (%5.2fx, bound %5.0f: %s)  "
      "%s%s\n",
      what.c_str(), mib, o.seconds, o.cpu_seconds, gb > 0 ? o.seconds / gb : 0.0,
      gb > 0 ? o.cpu_seconds / gb : 0.0, rss, mib > 0 ? rss / mib : 0.0, bound,
      rss <= bound + 64 ? "within" : "OVER", o.loaded ? "loaded" : "refused: ", o.loaded ? "" : msg.c_str());
  std::fflush(stdout);
}

struct HostileOptions {
  std::string size = "64M";
  std::string copies = "10,40,160";
  std::string source;
};

int run_bench_hostile(const HostileOptions& o) {
  const std::uint64_t size = parse_bench_size("--size", o.size);
  std::vector<int> copies;
  {
    std::istringstream in(o.copies);
    for (std::string n; std::getline(in, n, ',');) copies.push_back(std::atoi(n.c_str()));
  }
  const fs::path src = find_source_tree("tests/hostile/make_hostile.py");
  const std::string source =
      o.source.empty() ? (src / "tests/data/tf2_gpu_v100x8_bert_multiworker.xplane.pb").string() : o.source;
  char folder[] = "/tmp/oomscope-hostile-XXXXXX";
  if (!mkdtemp(folder)) throw Error(ErrorKind::Io, "/tmp", "cannot create a folder for the crafted inputs");
  const std::string script = (src / "tests/hostile/make_hostile.py").string();
  const auto make = [&](const std::string& kind, const fs::path& out, const std::string& extra) {
    const std::string cmd = "/usr/bin/python3 '" + script + "' " + kind + " '" + out.string() + "' " + extra +
                            " --source '" + source + "'";
    if (std::system(cmd.c_str()) != 0) throw Error(ErrorKind::Io, out.string(), "make_hostile.py failed");
  };
  std::printf("%-22s %11s %8s %10s %8s %14s  %s\n", "input", "size", "wall", "CPU", "wall/GB", "CPU/GB",
              "peak memory, outcome");
  for (const char* kind :
       {"empty-events", "tiny-events", "empty-lines", "hostnames", "empty-hostnames", "empty-errors",
        "errors", "metadata", "planes", "zeros", "random", "hlo-instructions", "hlo-computations",
        "hlo-metadata", "hlo-tuple-shapes", "hlo-dimensions", "hlo-unknown", "hlo-buffers"}) {
    const fs::path file = fs::path(folder) / (std::string(kind) + ".xplane.pb");
    make(kind, file, "--size " + std::to_string(size));
    std::error_code ec;
    print_row(kind, fs::file_size(file, ec), report_in_child(file.string()));
    fs::remove(file, ec);
  }
  for (const char* kind : {"joined", "joined-varied"}) {
    for (const int n : copies) {
      const fs::path file = fs::path(folder) / (std::string(kind) + ".xplane.pb");
      make(kind, file, "--copies " + std::to_string(n));
      std::error_code ec;
      print_row(std::string(kind) + " x" + std::to_string(n), fs::file_size(file, ec),
                report_in_child(file.string()));
      fs::remove(file, ec);
    }
  }
  std::error_code ec;
  fs::remove_all(folder, ec);
  return 0;
}

Runner define_bench_hostile(CLI::App& app) {
  auto o = std::make_shared<HostileOptions>();
  app.footer(
      "Makes crafted inputs with tests/hostile/make_hostile.py in a fresh folder under /tmp (deleted\n"
      "afterwards) and runs `report` on each in a child process: outcome (loaded, or the error), time and "
      "max\n"
      "RSS against the bound 8 x file + 64 MiB (+ the program; \"within\" allows 64 MiB for the program and\n"
      "the mapping). CPU is user + system time of the run, which a busy machine does not inflate as it does\n"
      "wall time.");
  app.add_option("--size", o->size, "bytes of each crafted file (default 64M)")->type_name("BYTES");
  app.add_option("--copies", o->copies,
                 "the joined captures, made of the source repeated N times (default 10,40,160),\n"
                 "byte-identical and with varied plane ids")
      ->type_name("N,N,...");
  app.add_option("--source", o->source,
                 "the capture to join (default tests/data/tf2_gpu_v100x8_bert_multiworker.xplane.pb)")
      ->type_name("FILE");
  return [o] { return run_bench_hostile(*o); };
}

}  // namespace

OOMSCOPE_BENCH(Command{"hostile", "peak memory and time of `report` on crafted inputs and joined captures",
                       define_bench_hostile});

}  // namespace oomscope::cli
