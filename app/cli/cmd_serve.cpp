// `oomscope-cli serve [--port P | --unix PATH] [--pid PID] ...`: the C++ agent as a command. Serves protocol
// v1 with the device memory NVML charges to a process (any trainer, unchanged, in any framework) and the
// process's RSS, for `watch` or the GUI's Live page to attach to.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "app/cli/command.h"
#include "core/live/agent_server.h"
#include "core/live/device_stats.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

const char kUsage[] =
    "usage: oomscope-cli serve [--port P | --unix PATH] [--host H] [--token T] [--pid PID] [--device N]\n"
    "                          [--interval MS] [--duration S] [--metrics-port P [--metrics-host H]]\n"
    "                          [--job NAME] [--rank N] [--endpoint-file FILE]\n"
    "\n"
    "Serves live stats (protocol v1) for a process: the device memory the NVIDIA driver charges to it\n"
    "(through libnvidia-ml.so.1, when there is a driver), and its resident set size. Without a GPU it "
    "serves\n"
    "RSS only and says so once. Binds 127.0.0.1 by default; another --host needs --token (or\n"
    "$OOMSCOPE_TOKEN), which clients must send first.\n"
    "\n"
    "  --port P        TCP port (default 7070; 0 picks a free one, printed on stderr)\n"
    "  --unix PATH     serve on a Unix socket created with mode 0600 instead\n"
    "  --pid PID       the process to describe (default: this one)\n"
    "  --device N      the GPU index for NVML (default 0)\n"
    "  --interval MS   sample interval (default 100)\n"
    "  --duration S    stop after S seconds (default: until interrupted or the process exits)\n"
    "  --metrics-port P  also serve Prometheus /metrics on this port (0 picks a free one; see\n"
    "                  docs/prometheus.md)\n"
    "  --metrics-host H  address for /metrics (default 127.0.0.1; another needs --token, which the\n"
    "                  scraper sends as 'Authorization: Bearer TOKEN')\n"
    "  --job NAME      the `job` label on /metrics (default $OOMSCOPE_JOB)\n"
    "  --rank N        the rank in the hello and the /metrics labels (default $RANK, else 0)\n"
    "  --endpoint-file FILE  write the endpoint served (and, with --metrics-port, the /metrics\n"
    "                  HOST:PORT on a second line) to FILE once serving\n";

int to_int(const std::string& option, const std::string& v) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 0)
    throw UsageError{option + " needs a non-negative integer, not '" + v + "'"};
  return static_cast<int>(n);
}

int run_serve(const std::vector<std::string>& args) {
  live::AgentOptions opts;
  opts.listen = live::Endpoint{false, "127.0.0.1", 7070, {}};
  if (const char* t = std::getenv("OOMSCOPE_TOKEN")) opts.token = t;
  std::int64_t pid = 0;
  int device = 0;
  std::string endpoint_file;
  live::Endpoint metrics{false, "127.0.0.1", -1, {}};
  if (const char* r = std::getenv("RANK"); r && *r) opts.hello.rank = to_int("$RANK", r);
  double duration = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--port")
      opts.listen.port = to_int(a, value());
    else if (a == "--unix")
      opts.listen = live::Endpoint{true, {}, 0, value()};
    else if (a == "--host")
      opts.listen.host = value();
    else if (a == "--token")
      opts.token = value();
    else if (a == "--pid")
      pid = to_int(a, value());
    else if (a == "--device")
      device = to_int(a, value());
    else if (a == "--interval")
      opts.interval_ms = std::max(1, to_int(a, value()));
    else if (a == "--duration")
      duration = to_int(a, value());
    else if (a == "--metrics-port")
      metrics.port = to_int(a, value());
    else if (a == "--metrics-host")
      metrics.host = value();
    else if (a == "--job")
      opts.job = value();
    else if (a == "--rank")
      opts.hello.rank = to_int(a, value());
    else if (a == "--endpoint-file")
      endpoint_file = value();
    else
      throw UsageError{"unknown option '" + a + "'"};
  }
  if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0)
    throw UsageError{"no process " + std::to_string(pid)};
  if (metrics.port > 65535) throw UsageError{"--metrics-port must be at most 65535"};
  if (metrics.port >= 0) opts.metrics = metrics;

  live::DeviceInfo info;
  std::string note;
  auto sources = live::make_device_sources(device, pid, info, note);
  opts.hello.pid = pid > 0 ? pid : ::getpid();
  opts.hello.backend = sources.empty() ? "cpu" : "cuda";
  opts.hello.device = info.name;
  opts.hello.total_bytes = info.total_bytes;
  opts.hello.framework = "oomscope-cli serve";
  opts.hello.command = {"oomscope-cli", "serve"};
  opts.device_label = sources.empty() ? "cpu" : "cuda:" + std::to_string(device);
  live::AgentServer agent(opts);
  for (auto& s : sources) agent.add_source(std::move(s));
  agent.add_source(std::make_unique<live::ProcessRssSource>(pid));
  try {
    agent.start();
  } catch (const Error& e) {
    std::cerr << "oomscope-cli serve: cannot serve: " << e.message() << "\n";
    return 2;
  }
  std::cerr << "oomscope-cli serve: " << agent.endpoint().to_string() << " (pid " << opts.hello.pid << "); "
            << note << "\n";
  if (opts.metrics)
    std::cerr << "oomscope-cli serve: Prometheus metrics at http://" << agent.metrics_endpoint()
              << "/metrics\n";
  if (!endpoint_file.empty()) {
    std::string text = agent.endpoint().to_string() + "\n";
    if (opts.metrics) text += agent.metrics_endpoint() + "\n";
    try {
      write_file_atomically(endpoint_file, text);
    } catch (const Error& e) {
      std::cerr << "oomscope-cli serve: " << e.message() << "\n";
      agent.stop();
      return 1;
    }
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const auto start = std::chrono::steady_clock::now();
  while (!g_stop.load()) {
    if (duration > 0 && std::chrono::steady_clock::now() - start > std::chrono::duration<double>(duration))
      break;
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0) {
      std::cerr << "oomscope-cli serve: process " << pid << " has exited\n";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  agent.stop();
  return 0;
}

}  // namespace

OOMSCOPE_COMMAND(Command{"serve", "the C++ live agent: serve a process's device memory and RSS", kUsage,
                         run_serve});

}  // namespace oomscope::cli
