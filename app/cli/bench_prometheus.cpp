// `oomscope-cli bench prometheus`: the rank table and chart data for N ranks (default 64) over H hours
// (default 1) of history read from a real Prometheus, the way `watch prometheus:...` and the Live page
// start. The history is made without waiting: OpenMetrics text for N ranks x H h at 1 s is written here,
// turned into TSDB blocks with `promtool tsdb create-blocks-from openmetrics`, and Debian's `prometheus`
// is started on 127.0.0.1 over that storage. Then (three times) PromReader discovers the ranks and reads
// the history into a LiveSession (one query_range per metric), and the rank table and every rank's chart
// data (4 lines x 800 buckets) are cut. Figures: wall time of each part, bytes and points read, and the
// cost per rank that docs/prometheus-source.md extrapolates from.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <thread>

#include "app/cli/bench.h"
#include "app/cli/bench_support.h"
#include "app/cli/live_format.h"
#include "core/live/client/session.h"
#include "core/live/client/store.h"
#include "core/live/prom/prom_source.h"
#include "core/live/protocol/metric_names.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

constexpr int kClosest = 17;  // the rank generated closest to OOM (the table must put it first)

// One family at a time, every rank, every second, as `promtool tsdb create-blocks-from openmetrics` wants.
// Returns the number of metric families written.
std::size_t write_openmetrics(const fs::path& path, int ranks, std::int64_t start_s, std::int64_t seconds) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(ErrorKind::Io, path.string(), "cannot write the OpenMetrics file");
  const std::int64_t gib = 1ll << 30;
  auto labels = [](int r) {
    char buf[128];
    std::snprintf(buf, sizeof buf,
                  "job=\"bench\",rank=\"%d\",local_rank=\"%d\",host=\"node%02d\",device=\"cuda:%d\"", r,
                  r % 8, r / 8, r % 8);
    return std::string(buf);
  };
  auto used = [&](int r, std::int64_t i) {  // device_used: a training loop's saw tooth, rank 17 highest
    const std::int64_t base = (r == kClosest ? 76 : 40 + (r * 7) % 30) * gib;
    return base + (i % 60) * (gib / 60) + r * 4096;
  };
  // The families the agents write (core/live/protocol/metric_names.h), with a CUDA trainer's values; the
  // MPS-only families (driver, recommended maximum) are left out as a CUDA agent leaves them out.
  struct Family {
    std::string name;    // the OpenMetrics family (a counter's without _total)
    std::string sample;  // the sample's name as the agents write it
    std::string type;
    std::function<std::int64_t(int, std::int64_t)> value;  // (rank, second)
  };
  auto family = [](const live::MetricFamily& m, std::function<std::int64_t(int, std::int64_t)> value) {
    std::string name(m.name);
    if (m.type == "counter" && name.ends_with("_total")) name.resize(name.size() - 6);
    return Family{name, std::string(m.name), std::string(m.type), std::move(value)};
  };
  std::vector<Family> families;
  for (const live::FieldMetric& fm : live::kFieldMetrics) {
    std::function<std::int64_t(int, std::int64_t)> v;
    switch (fm.field) {
      case live::Field::Allocated:
        v = [&](int r, std::int64_t i) { return used(r, i) - 3 * gib; };
        break;
      case live::Field::Reserved:
        v = [&](int r, std::int64_t i) { return used(r, i) - gib; };
        break;
      case live::Field::Active:
        v = [&](int r, std::int64_t i) { return used(r, i) - 3 * gib + 1'000'000; };
        break;
      case live::Field::InactiveSplit:
        v = [](int, std::int64_t i) { return (i % 17) * (64 << 20); };
        break;
      case live::Field::PeakAllocated:
        v = [&](int r, std::int64_t) { return used(r, 59) - 3 * gib; };
        break;
      case live::Field::DeviceUsed:
        v = [&](int r, std::int64_t i) { return used(r, i); };
        break;
      case live::Field::Rss:
        v = [](int r, std::int64_t) { return 6 * gib + r * (1 << 20); };
        break;
      case live::Field::Ooms:
        v = [](int, std::int64_t) { return std::int64_t{0}; };
        break;
      case live::Field::AllocRetries:
        v = [](int, std::int64_t i) { return i / 900; };
        break;
      case live::Field::Step:
        v = [](int, std::int64_t i) { return i / 2; };
        break;
      default:  // Driver, RecommendedMax: MPS only
        continue;
    }
    families.push_back(family(fm.family, std::move(v)));
  }
  families.push_back(family(live::kCapacityMetric, [&](int, std::int64_t) { return 80 * gib; }));
  families.push_back(family(live::kShapesMetric, [](int, std::int64_t i) { return 40 + i / 600; }));
  for (const Family& fam : families) {
    std::fprintf(f, "# TYPE %s %s\n", fam.name.c_str(), fam.type.c_str());
    for (int r = 0; r < ranks; ++r) {
      const std::string l = labels(r);
      for (std::int64_t i = 0; i < seconds; ++i) {
        std::fprintf(f, "%s{%s} %lld %lld\n", fam.sample.c_str(), l.c_str(),
                     static_cast<long long>(fam.value(r, i)),
                     static_cast<long long>(start_s) + static_cast<long long>(i));
      }
    }
  }
  std::fprintf(f, "# TYPE oomscope_agent_info gauge\n");
  for (int r = 0; r < ranks; ++r)
    for (std::int64_t i = 0; i < seconds; i += 1)
      std::fprintf(f,
                   "oomscope_agent_info{%s,agent=\"python\",version=\"bench\",backend=\"cuda\",stats_"
                   "endpoint=\"node%02d:%d\"} 1 %lld\n",
                   labels(r).c_str(), r / 8, 7070 + r % 8,
                   static_cast<long long>(start_s) + static_cast<long long>(i));
  std::fprintf(f, "# EOF\n");
  if (std::fclose(f) != 0) throw Error(ErrorKind::Io, path.string(), "cannot write the OpenMetrics file");
  return families.size() + 1;  // and oomscope_agent_info
}

pid_t spawn_quiet(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  if (fd >= 0) ::close(fd);
  return port;
}

// CPU seconds a process has used so far (utime + stime from /proc/PID/stat), or -1.
double process_cpu_s(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return -1;
  char buf[2048];
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');  // fields after the command name
  if (!p) return -1;
  unsigned long long utime = 0, stime = 0;
  if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
    return -1;
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double self_cpu_s() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return cpu_seconds(ru);
}

int run_bench_prometheus(int ranks_given, double hours_given) {
  const int ranks = std::max(kClosest + 1, ranks_given);
  const double hours = std::max(0.01, hours_given);
  const std::string prometheus = "/usr/bin/prometheus", promtool = "/usr/bin/promtool";
  if (!fs::exists(prometheus) || !fs::exists(promtool)) {
    std::cout << "skipped: " << prometheus << " or " << promtool
              << " is missing (Debian package prometheus)\n";
    return 0;
  }
  const fs::path dir = fs::temp_directory_path() / ("oomscope-bench-prom-" + std::to_string(::getpid()));
  fs::create_directories(dir / "data");
  pid_t prom = -1;
  int rc = 0;
  try {
    const std::int64_t seconds = static_cast<std::int64_t>(hours * 3600);
    const std::int64_t end_s =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count() -
        30;
    auto t0 = Clock::now();
    const std::size_t metrics = write_openmetrics(dir / "history.om", ranks, end_s - seconds, seconds);
    std::printf("history: %d ranks x %.2f h at 1 s, %zu metrics: %.1f MB of OpenMetrics in %.1f s\n", ranks,
                hours, metrics, static_cast<double>(fs::file_size(dir / "history.om")) / 1e6, since(t0));
    t0 = Clock::now();
    int status = 0;
    long rss = 0;
    const std::string out = run_process({promtool, "tsdb", "create-blocks-from", "openmetrics",
                                         (dir / "history.om").string(), (dir / "data").string()},
                                        status, rss);
    if (status != 0) throw Error(ErrorKind::Io, promtool, "create-blocks-from failed: " + out.substr(0, 400));
    fs::remove(dir / "history.om");
    std::printf("promtool tsdb create-blocks-from openmetrics: %.1f s\n", since(t0));

    const int port = free_port();
    const std::string server = "http://127.0.0.1:" + std::to_string(port);
    std::FILE* cfg = std::fopen((dir / "prometheus.yml").c_str(), "w");
    if (cfg) {
      std::fputs("global:\n  scrape_interval: 1s\nscrape_configs: []\n", cfg);
      std::fclose(cfg);
    }
    t0 = Clock::now();
    prom = spawn_quiet({prometheus, "--config.file=" + (dir / "prometheus.yml").string(),
                        "--storage.tsdb.path=" + (dir / "data").string(), "--storage.tsdb.retention.time=30d",
                        "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"},
                       dir / "prometheus.log");
    if (prom < 0) throw Error(ErrorKind::Io, prometheus, "cannot start it");
    live::PromApi ping(server, 2000);
    for (;;) {
      try {
        if (!ping.query("oomscope_rss_bytes{job=\"bench\",rank=\"0\"}", (end_s - 1) * 1000).empty()) break;
      } catch (const Error&) {
      }
      if (since(t0) > 120) throw Error(ErrorKind::Io, prometheus, "not ready after 120 s (see its log)");
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    std::printf("prometheus on %s over those blocks: ready in %.1f s\n\n", server.c_str(), since(t0));

    live::PromOptions options;
    options.selector = "job=\"bench\"";
    options.since_s = seconds;
    const std::int64_t now_ms = end_s * 1000 + 1000;
    for (int run = 0; run < 3; ++run) {
      live::LiveSession session;
      for (auto& r : live::default_alert_rules()) session.add_rule(r);
      live::PromReader reader(server, options, session);
      const double cpu0 = self_cpu_s(), server0 = process_cpu_s(prom);
      t0 = Clock::now();
      reader.discover(now_ms);
      const double t_discover = since(t0);
      reader.read_history(now_ms);
      const double t_history = since(t0) - t_discover;
      const double cpu_read = self_cpu_s() - cpu0, cpu_server = process_cpu_s(prom) - server0;
      auto t1 = Clock::now();
      std::string table;
      int first = -1;
      session.read([&](const live::Store& s, const live::AlertEngine&) {
        table = live_table(s);
        const auto order = live::ranks_by_headroom(s);
        first = order.empty() ? -1 : s.ranks()[static_cast<std::size_t>(order.front())].hello->rank;
        return 0;
      });
      const double t_table = since(t1);
      t1 = Clock::now();
      std::size_t buckets = 0, samples = 0;
      session.read([&](const live::Store& s, const live::AlertEngine&) {
        samples = s.sample_count();
        for (std::size_t r = 0; r < s.ranks().size(); ++r)
          for (live::Field f :
               {live::Field::Allocated, live::Field::Reserved, live::Field::DeviceUsed, live::Field::Rss})
            buckets += s.downsample(static_cast<int>(r), f, s.first_t(), s.last_t() + 1, 800).size();
        return 0;
      });
      const double t_charts = since(t1);
      const double total = t_discover + t_history + t_table + t_charts;
      std::printf(
          "run %d%s: discover %.3f s, history %.3f s (%llu requests, %.1f MB, step %lld ms, %zu samples), "
          "table %.4f s, charts %.3f s (%zu buckets): total %.3f s\n",
          run + 1, run == 0 ? " (cold)" : "", t_discover, t_history,
          static_cast<unsigned long long>(reader.requests()), static_cast<double>(reader.bytes_read()) / 1e6,
          static_cast<long long>(reader.step_ms()), samples, t_table, t_charts, buckets, total);
      std::printf(
          "       per rank %.2f ms and %.0f KB read; CPU in discover+history: this process %.3f s, "
          "prometheus %.3f s; first row rank %d%s\n",
          total * 1000 / ranks, static_cast<double>(reader.bytes_read()) / 1e3 / ranks, cpu_read, cpu_server,
          first,
          first == kClosest ? " (the rank generated closest to OOM)"
                            : " (WRONG: expected the closest to OOM)");
      if (reader.ranks().size() != static_cast<std::size_t>(ranks) || first != kClosest) rc = 1;
    }
  } catch (const Error& e) {
    std::cerr << "bench prometheus: " << e.what() << "\n";
    rc = 1;
  }
  if (prom > 0) {
    ::kill(prom, SIGTERM);
    int status = 0;
    ::waitpid(prom, &status, 0);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) > 0)
    std::printf("load average now %.1f on %u cores (other work on the machine slows the wall times)\n",
                load[0], std::thread::hardware_concurrency());
  return rc;
}

Runner define_bench_prometheus(CLI::App& app) {
  auto ranks = std::make_shared<int>(64);
  auto hours = std::make_shared<double>(1);
  app.footer(
      "Writes N ranks x H hours of agent metrics at 1 s as OpenMetrics, backfills them with `promtool tsdb\n"
      "create-blocks-from openmetrics`, starts /usr/bin/prometheus on 127.0.0.1 over that storage, and "
      "times\n"
      "(three runs, the first cold) discovery, the history read into a live session, the rank table (sorted\n"
      "by headroom) and every rank's chart data.");
  app.add_option("--ranks", *ranks, "ranks to write (default 64)")->type_name("N");
  app.add_option("--hours", *hours, "hours of history (default 1)")->type_name("H");
  return [ranks, hours] { return run_bench_prometheus(*ranks, *hours); };
}

}  // namespace

OOMSCOPE_BENCH(Command{"prometheus",
                       "Prometheus source: rank table and charts for 64 ranks over 1 h of history",
                       define_bench_prometheus});

}  // namespace oomscope::cli
