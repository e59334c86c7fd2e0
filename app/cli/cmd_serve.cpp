// `oomscope-cli serve [--port P | --unix PATH] [--pid PID] ...`: the C++ agent as a command. Serves protocol
// v1 with the device memory NVML charges to a process (any trainer, unchanged, in any framework) and the
// process's RSS, for `watch` or the GUI's Live page to attach to.

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "app/cli/command.h"
#include "core/live/agent/agent_server.h"
#include "core/live/agent/device_stats.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

struct ServeOptions {
  int port = 7070;
  std::string unix_path;
  std::string host = "127.0.0.1";
  std::string token;
  int pid = 0;
  int device = 0;
  int interval_ms = 100;
  int duration = 0;
  int metrics_port = -1;
  std::string metrics_host = "127.0.0.1";
  std::string job;
  int rank = -1;
  std::string endpoint_file;
};

int run_serve(const ServeOptions& o) {
  live::AgentOptions opts;
  opts.listen = o.unix_path.empty() ? live::Endpoint{false, o.host, o.port, {}}
                                    : live::Endpoint{true, {}, 0, o.unix_path};
  if (const char* t = std::getenv("OOMSCOPE_TOKEN")) opts.token = t;
  if (!o.token.empty()) opts.token = o.token;
  const std::int64_t pid = o.pid;
  const int device = o.device;
  const double duration = o.duration;
  opts.interval_ms = std::max(1, o.interval_ms);
  if (const char* r = std::getenv("RANK"); r && *r) {
    char* end = nullptr;
    const long n = std::strtol(r, &end, 10);
    if (*end != '\0' || n < 0 || n > INT_MAX)
      throw UsageError{"$RANK needs a non-negative integer, not '" + std::string(r) + "'"};
    opts.hello.rank = static_cast<int>(n);
  }
  if (o.rank >= 0) opts.hello.rank = o.rank;
  if (!o.job.empty()) opts.job = o.job;
  const std::string& endpoint_file = o.endpoint_file;
  if (o.metrics_port > 65535) throw UsageError{"--metrics-port must be at most 65535"};
  if (o.metrics_port >= 0) opts.metrics = live::Endpoint{false, o.metrics_host, o.metrics_port, {}};
  if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0)
    throw UsageError{"no process " + std::to_string(pid)};

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

// A non-negative integer option.
CLI::Option* add_int(CLI::App& app, const std::string& name, int& into, const std::string& type,
                     const std::string& help) {
  return app
      .add_option_function<std::string>(
          name,
          [&into, name](const std::string& v) {
            char* end = nullptr;
            errno = 0;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || n < 0 || n > INT_MAX || errno != 0)
              throw CLI::ValidationError(name, "needs a non-negative integer, not '" + v + "'");
            into = static_cast<int>(n);
          },
          help)
      ->type_name(type);
}

Runner define_serve(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  app.footer(
      "Serves live stats (protocol v1) for a process: the device memory the NVIDIA driver charges to it\n"
      "(through libnvidia-ml.so.1, when there is a driver), and its resident set size. Without a GPU it\n"
      "serves RSS only and says so once. Binds 127.0.0.1 by default; another --host needs --token (or\n"
      "$OOMSCOPE_TOKEN), which clients must send first.");
  add_int(app, "--port", o->port, "P", "TCP port (default 7070; 0 picks a free one, printed on stderr)");
  app.add_option("--unix", o->unix_path, "serve on a Unix socket created with mode 0600 instead")
      ->type_name("PATH");
  app.add_option("--host", o->host, "the address to bind (default 127.0.0.1)")->type_name("H");
  app.add_option("--token", o->token, "the token clients must send first (default: $OOMSCOPE_TOKEN)")
      ->type_name("T");
  add_int(app, "--pid", o->pid, "PID", "the process to describe (default: this one)");
  add_int(app, "--device", o->device, "N", "the GPU index for NVML (default 0)");
  add_int(app, "--interval", o->interval_ms, "MS", "sample interval (default 100)");
  add_int(app, "--duration", o->duration, "S",
          "stop after S seconds (default: until interrupted or the process exits)");
  add_int(app, "--metrics-port", o->metrics_port, "P",
          "also serve Prometheus /metrics on this port (0 picks a free one; see\n"
          "docs/prometheus.md)");
  app.add_option("--metrics-host", o->metrics_host,
                 "address for /metrics (default 127.0.0.1; another needs --token, which the\n"
                 "scraper sends as 'Authorization: Bearer TOKEN')")
      ->type_name("H");
  app.add_option("--job", o->job, "the `job` label on /metrics (default $OOMSCOPE_JOB)")->type_name("NAME");
  add_int(app, "--rank", o->rank, "N",
          "the rank in the hello and the /metrics labels (default $RANK, else 0)");
  app.add_option("--endpoint-file", o->endpoint_file,
                 "write the endpoint served (and, with --metrics-port, the /metrics\n"
                 "HOST:PORT on a second line) to FILE once serving")
      ->type_name("FILE");
  return [o] { return run_serve(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"serve", "the C++ live agent: serve a process's device memory and RSS",
                         define_serve});

}  // namespace oomscope::cli
