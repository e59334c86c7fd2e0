// `oomscope-cli bench kineto`: reads Kineto / Chrome traces (the real ones in tests/data, or one scaled up to
// --scale-to, plain or gzip) in a forked child, with its wall and CPU time and max RSS, against Python's
// gzip + json.load of the same file in a subprocess (tests/bench/python_kineto_load.py), checking that both
// count the same events; and times gzip decompression of each .gz file by zlib alone and by the reader's
// inflater (ISA-L, core/util/gzip.h), in CPU time.

#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/cli/bench.h"
#include "app/cli/bench_support.h"
#include "core/snapshot/kineto.h"
#include "core/util/bytes.h"
#include "core/util/gzip.h"
#include "core/util/gzip_stream.h"
#include "core/util/progress.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

namespace {

double self_cpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return cpu_seconds(ru);
}

// zlib's inflate over every member into a 1 MiB buffer, as the reader's inflater did before ISA-L.
std::uint64_t zlib_inflated_size(const std::string& gz) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return 0;
  std::string chunk(1u << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::uint64_t n = 0;
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    n += chunk.size() - z.avail_out;
    if (rc == Z_STREAM_END && z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
      inflateReset(&z);
      continue;
    }
    if (rc != Z_OK) break;
  }
  inflateEnd(&z);
  return n;
}

bool is_gzip_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[2] = {};
  in.read(magic, 2);
  return in.gcount() == 2 && is_gzip(std::string_view(magic, 2));
}

// zlib alone (the reference inflater) against the reader's (ISA-L, GzipStream), best of 3 by CPU time;
// both into a reused 1 MiB buffer, as the Kineto reader takes its input (a string of the whole output
// would add the cost of touching fresh pages to both: on this machine's VM, more than ISA-L's decoding).
void time_gzip(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  double best_zlib = 1e9, best_fast = 1e9, wall_zlib = 0, wall_fast = 0;
  std::uint64_t out_bytes = 0;
  for (int rep = 0; rep < 3; ++rep) {
    for (const bool fast : {false, true}) {
      const double c0 = self_cpu();
      const auto t0 = std::chrono::steady_clock::now();
      std::uint64_t n = 0;
      if (fast) {
        GzipStream stream(gz, 1ull << 40);
        for (std::string_view c = stream.next(); !c.empty(); c = stream.next()) n += c.size();
      } else {
        n = zlib_inflated_size(gz);
      }
      const double cpu = self_cpu() - c0;
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      out_bytes = n;
      if (fast && cpu < best_fast) best_fast = cpu, wall_fast = wall;
      if (!fast && cpu < best_zlib) best_zlib = cpu, wall_zlib = wall;
    }
  }
  const auto rate = [&](double s) { return s > 0 ? static_cast<double>(out_bytes) / s / 1e6 : 0.0; };
  std::printf(
      "  gzip (%s out): zlib %.3f s CPU (%.0f MB/s; %.3f s wall), ISA-L %.3f s CPU (%.0f MB/s; %.3f s wall): "
      "%.2fx zlib\n",
      format_bytes(out_bytes).c_str(), best_zlib, rate(best_zlib), wall_zlib, best_fast, rate(best_fast),
      wall_fast, best_fast > 0 ? best_zlib / best_fast : 0.0);
}

void measure(const std::string& file, const fs::path& src, bool python) {
  std::error_code ec;
  const auto size_or = fs::file_size(file, ec);
  const std::uint64_t size = ec ? 0 : static_cast<std::uint64_t>(size_or);
  std::printf("%s (%s)\n", file.c_str(), ec ? "cannot stat" : format_bytes(size).c_str());
  std::fflush(stdout);
  const ChildRun c = run_in_child([&file]() -> std::pair<int, std::string> {
    try {
      NullProgress none;
      const auto t0 = std::chrono::steady_clock::now();
      const auto t = snapshot::read_kineto_trace(file, none);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      char msg[128];
      std::snprintf(msg, sizeof msg, "%.6f %zu %zu %zu", s, t->events, t->memory_events, t->oom_events);
      return {0, msg};
    } catch (const std::exception& e) {
      return {1, std::string("error: ") + e.what()};
    }
  });
  if (!c.ok()) {
    std::printf("  oomscope: FAILED: %s\n", c.message.empty() ? "the child died" : c.message.c_str());
    return;
  }
  double read_s = 0;
  std::size_t events = 0, mem = 0, oom = 0;
  std::sscanf(c.message.c_str(), "%lf %zu %zu %zu", &read_s, &events, &mem, &oom);
  const double rss = static_cast<double>(c.max_rss_kib) * 1024.0;
  std::printf("  oomscope: %.3f s wall (%.3f s CPU), max RSS %s (%.2fx the file); %zu events, %zu [memory]\n",
              read_s, c.cpu_s, format_bytes(static_cast<std::int64_t>(rss)).c_str(),
              size ? rss / static_cast<double>(size) : 0.0, events, mem);
  if (is_gzip_file(file)) time_gzip(file);
  if (!python) return;
  int status = 0;
  long py_rss = 0;
  double py_cpu = 0;
  const std::string out =
      run_process({"/usr/bin/python3", (src / "tests/bench/python_kineto_load.py").string(), file}, status,
                  py_rss, &py_cpu);
  try {
    const auto j = nlohmann::json::parse(out);
    const double s = j.at("seconds").get<double>();
    const bool same = j.at("events").get<std::size_t>() == events &&
                      j.at("memory_events").get<std::size_t>() == mem &&
                      j.at("oom_events").get<std::size_t>() == oom;
    std::printf(
        "  python gzip + json.load: %.3f s wall (process %.3f s CPU), max RSS %s; oomscope is %.1fx faster "
        "by wall, %.1fx by CPU; event counts %s\n",
        s, py_cpu, format_bytes(static_cast<std::int64_t>(py_rss) * 1024).c_str(), s / read_s,
        c.cpu_s > 0 ? py_cpu / c.cpu_s : 0.0, same ? "agree" : "DIFFER");
  } catch (const std::exception&) {
    std::printf("  python json.load: failed (exit %d)\n", status);
  }
}

struct KinetoBenchOptions {
  std::vector<std::string> files;
  std::string scale_to;
  std::string source;
  bool gz = false, keep = false, no_python = false;
};

int run_bench(const KinetoBenchOptions& o) {
  std::vector<std::string> files = o.files;
  const std::uint64_t scale_to = o.scale_to.empty() ? 0 : parse_bench_size("--scale-to", o.scale_to);
  const fs::path src = find_source_tree("tests/bench/python_kineto_load.py");
  const std::string source = o.source.empty()
                                 ? (src / "tests/data/kineto_ddp_v100_rank1_profile_memory.json.gz").string()
                                 : o.source;
  if (files.empty() && !scale_to)
    for (const auto& e : fs::directory_iterator(src / "tests/data"))
      if (e.path().filename().string().starts_with("kineto_")) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) measure(f, src, !o.no_python);
  if (scale_to) {
    const fs::path dir = fs::temp_directory_path() / ("oomscope-bench-kineto-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string big = (dir / (o.gz ? "big.json.gz" : "big.json")).string();
    std::printf("making a %s trace from %s (tests/bench/make_big_trace.py)...\n",
                format_bytes(scale_to).c_str(), source.c_str());
    std::fflush(stdout);
    int status = 0;
    long rss = 0;
    run_process({"/usr/bin/python3", (src / "tests/bench/make_big_trace.py").string(), source, big,
                 std::to_string(scale_to)},
                status, rss);
    if (status != 0)
      std::printf("make_big_trace.py failed (exit %d)\n", status);
    else
      measure(big, src, !o.no_python);
    if (!o.keep)
      fs::remove_all(dir);
    else
      std::printf("kept %s\n", big.c_str());
  }
  return 0;
}

Runner define_bench_kineto(CLI::App& app) {
  auto o = std::make_shared<KinetoBenchOptions>();
  app.footer(
      "Reads each FILE (default: the Kineto traces in tests/data) as `report` does, in a forked child (wall\n"
      "and CPU time, max RSS), and with Python's gzip + json.load (tests/bench/python_kineto_load.py), "
      "whose\n"
      "event counts must agree. Each .gz file's decompression is also timed with zlib alone and with the\n"
      "reader's ISA-L inflater. With --scale-to, first makes a trace of about BYTES of JSON from --source\n"
      "with tests/bench/make_big_trace.py in /tmp (gzip'd with --gz), deleted afterwards unless --keep.\n"
      "Targets: 10x Python's json.load (plain and gzip), a 1 GB JSON trace in under 3 s, memory bounded by\n"
      "the events kept.");
  app.add_option("FILES", o->files, "traces to read (default: the Kineto traces in tests/data)")
      ->type_name("FILE");
  app.add_option("--scale-to", o->scale_to, "also read a trace of about BYTES of JSON (1G, 512M, ...)")
      ->type_name("BYTES");
  app.add_option("--source", o->source,
                 "the trace to scale up (default tests/data/kineto_ddp_v100_rank1_profile_memory.json.gz)")
      ->type_name("FILE");
  app.add_flag("--gz", o->gz, "write the scaled trace gzip'd (level 1)");
  app.add_flag("--keep", o->keep, "keep the scaled trace");
  app.add_flag("--no-python", o->no_python, "skip Python's json.load");
  return [o] { return run_bench(*o); };
}

}  // namespace

OOMSCOPE_BENCH(Command{"kineto",
                       "read Kineto traces (real ones, or one scaled up to --scale-to) vs Python's json.load",
                       define_bench_kineto});

}  // namespace oomscope::cli
