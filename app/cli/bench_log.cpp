// `oomscope-cli bench log FILE`: the log reader's speed and memory on FILE (in a child process: wall, CPU,
// max RSS), against `grep -c "out of memory" FILE` on the same file in the same run. --make SIZE first
// writes FILE: training-log lines with a few out-of-memory messages of different kinds among them.

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "app/cli/bench.h"
#include "app/cli/bench_support.h"
#include "core/log/log.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

struct LogBenchOptions {
  std::string path;
  std::string make;  // a size, or "" to read FILE as it is
};

void make_log(const std::string& path, std::uint64_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorKind::Io, path, "cannot write the benchmark log");
  const std::string messages[] = {
      "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 3 has a total "
      "capacity "
      "of 79.15 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.11 GiB "
      "memory in "
      "use. Of the allocated memory 70.25 GiB is allocated by PyTorch, and 6.38 GiB is reserved by PyTorch "
      "but "
      "unallocated.\n",
      "2024-05-01 10:00:00.000001: W external/tsl/tsl/framework/bfc_allocator.cc:479] Allocator (GPU_0_bfc) "
      "ran "
      "out of memory trying to allocate 27.93GiB (rounded to 29995136256)requested by op\n",
      "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
      "4770354232 bytes.\n"};
  std::uint64_t written = 0, line = 0;
  std::size_t next_message = 0;
  char buf[256];
  while (written < size) {
    const int n =
        std::snprintf(buf, sizeof buf,
                      "I0309 12:51:51.372677 140 trainer.py:212] step %llu loss 2.%04llu lr 3e-4 "
                      "tokens/s 181234 grad_norm 0.93 mem 71.2GiB\n",
                      static_cast<unsigned long long>(line), static_cast<unsigned long long>(line % 9973));
    out.write(buf, n);
    written += static_cast<std::uint64_t>(n);
    ++line;
    // Three messages, at a quarter, half and three quarters of the file.
    if (next_message < 3 && written >= size / 4 * (next_message + 1)) {
      out << messages[next_message];
      written += messages[next_message].size();
      ++next_message;
    }
  }
}

int run_bench_log(const LogBenchOptions& o) {
  if (!o.make.empty()) {
    const std::uint64_t size = parse_bench_size("--make", o.make);
    std::cerr << "writing " << o.path << " (" << format_bytes(size) << ")...\n";
    make_log(o.path, size);
  }
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(o.path, ec);
  if (ec) throw Error(ErrorKind::NotFound, o.path, "cannot read the log: " + ec.message());
  const double mb = static_cast<double>(bytes) / 1e6;
  // Read once so that both runs find the file in the page cache.
  {
    int status = 0;
    long rss = 0;
    run_process({"/bin/cat", o.path}, status, rss);
  }
  const ChildRun r = run_in_child([&] {
    NullProgress none;
    const log::LogFile l = log::read_log(o.path, none);
    return std::pair<int, std::string>(
        0, std::to_string(l.messages.size()) + " messages in " + std::to_string(l.lines) + " lines");
  });
  if (!r.ok()) throw Error(ErrorKind::Internal, o.path, "the reader's run failed: " + r.message);
  int status = 0;
  long grep_rss = 0;
  double grep_cpu = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string count =
      run_process({"/usr/bin/grep", "-c", "out of memory", o.path}, status, grep_rss, &grep_cpu);
  const double grep_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("log %s: %.1f MB\n", o.path.c_str(), mb);
  std::printf(
      "  oomscope read_log: %.3f s wall, %.3f s CPU, %.0f MB/s (wall), %.0f MB/s (CPU), max RSS %.1f MiB; "
      "%s\n",
      r.wall_s, r.cpu_s, mb / std::max(r.wall_s, 1e-9), mb / std::max(r.cpu_s, 1e-9),
      static_cast<double>(r.max_rss_kib) / 1024.0, r.message.c_str());
  std::printf(
      "  grep -c 'out of memory': %.3f s wall, %.3f s CPU, %.0f MB/s (wall), %.0f MB/s (CPU); count %s",
      grep_wall, grep_cpu, mb / std::max(grep_wall, 1e-9), mb / std::max(grep_cpu, 1e-9),
      count.empty() ? "?\n" : count.c_str());
  return 0;
}

Runner define_bench_log(CLI::App& app) {
  auto o = std::make_shared<LogBenchOptions>();
  app.footer(
      "Reads FILE with the log reader in a child process (wall, CPU, max RSS) and runs `grep -c \"out of\n"
      "memory\" FILE` on it in the same run, after one pass that puts the file in the page cache. --make "
      "SIZE\n"
      "first writes FILE: absl-style training lines with three out-of-memory messages among them.");
  app.add_option("FILE", o->path, "the log")->required()->type_name("FILE");
  app.add_option("--make", o->make, "write FILE first, of this size (1G, 512M)")->type_name("BYTES");
  return [o] { return run_bench_log(*o); };
}

}  // namespace

OOMSCOPE_BENCH(Command{"log", "the log reader's MB/s and memory on a log, against grep -c on the same file",
                       define_bench_log});

}  // namespace oomscope::cli
