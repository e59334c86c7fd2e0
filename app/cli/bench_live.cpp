// `oomscope-cli bench live`: the debugger side of live attach, measured.
//   ingest: N real agents (C++ AgentServer, in a child process, real loopback sockets) at 10 Hz; this
//           process runs the client, the store, the default alert rules and a recorder, and its CPU time
//           (getrusage, the child excluded) is reported as a share of one core;
//   record: the recording's bytes per rank-hour, from that run;
//   open:   a 24-hour 10 Hz recording of one rank (written here from the same synthetic series), opened
//           into the store and the default alerts, the way `replay` and the Live page open it.
// The agents' figures are synthetic but move every sample like a training loop's (see TrainingLike).

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "app/cli/bench.h"
#include "app/cli/bench_support.h"
#include "core/live/agent/agent_server.h"
#include "core/live/client/client.h"
#include "core/live/client/recorder.h"
#include "core/live/client/replay.h"
#include "core/live/client/session.h"

namespace oomscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

// A training loop's memory as an allocator reports it: activations rise and fall within each step (with
// 512-byte granularity noise), reserved grows in 2 MiB segments now and then, the driver figure creeps up,
// a step every third sample, four micro-batches per step.
class TrainingLike final : public live::StatsSource {
 public:
  explicit TrainingLike(std::uint64_t seed) : rng_(seed * 2654435761u + 1) {}
  std::string name() const override { return "training-like"; }
  void fill(live::Sample& s) override { next(s, 0); }
  void next(live::Sample& s, std::int64_t t) {
    ++n_;
    if (t) s.t = t;
    const std::int64_t phase = n_ % 3;
    const std::int64_t act = phase == 1 ? 3'400'000'000 : phase == 2 ? 1'100'000'000 : 200'000'000;
    const std::int64_t alloc = 2'000'000'000 + act + static_cast<std::int64_t>(rand() % 200'000) * 512;
    if (rand() % 50 == 0) reserved_ += 2 << 20;
    reserved_ = std::max(reserved_, alloc + (64 << 20));
    driver_ += static_cast<std::int64_t>(rand() % 400) * 4096;
    s.set(live::Field::Step, n_ / 3);
    s.set(live::Field::Micro, n_ * 4 / 3);
    s.set(live::Field::Allocated, alloc);
    s.set(live::Field::Reserved, reserved_);
    s.set(live::Field::Active, alloc + 1'000'000);
    s.set(live::Field::PeakAllocated, 5'600'000'000);
    s.set(live::Field::InactiveSplit, static_cast<std::int64_t>(rand() % 4096) * 4096);
    s.set(live::Field::AllocRetries, 0);
    s.set(live::Field::Ooms, 0);
    s.set(live::Field::DeviceUsed, std::max(driver_, reserved_ + 600'000'000));
    s.set(live::Field::Rss, 3'000'000'000 + (n_ / 100) * 4096);
  }

 private:
  std::uint64_t rand() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }
  std::uint64_t rng_;
  std::int64_t n_ = 0;
  std::int64_t reserved_ = 6'000'000'000;
  std::int64_t driver_ = 7'000'000'000;
};

double own_cpu_seconds() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return cpu_seconds(ru);
}

struct LiveBenchOptions {
  int ranks = 0, seconds = 0, hours = 0;  // 0: the default (or --quick's)
  bool quick = false;
};

int run_bench_live(const LiveBenchOptions& o) {
  int ranks = o.quick ? 8 : 64, seconds = o.quick ? 4 : 20, hours = o.quick ? 1 : 24;
  if (o.ranks > 0) ranks = o.ranks;
  if (o.seconds > 0) seconds = o.seconds;
  if (o.hours > 0) hours = o.hours;
  const auto dir =
      std::filesystem::temp_directory_path() / ("oomscope-bench-live-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);

  // --- ingest: agents in a child process, the client here.
  int ports_pipe[2];
  if (::pipe(ports_pipe) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ports_pipe[0]);
    std::vector<std::unique_ptr<live::AgentServer>> agents;
    for (int r = 0; r < ranks; ++r) {
      live::AgentOptions o;
      o.interval_ms = 100;
      o.hello.rank = r;
      o.hello.world_size = ranks;
      o.hello.backend = "cuda";
      o.log = [](const std::string&) {};
      agents.push_back(std::make_unique<live::AgentServer>(o));
      agents.back()->add_source(std::make_unique<TrainingLike>(std::uint64_t(r)));
      agents.back()->start();
      const int port = agents.back()->port();
      [[maybe_unused]] auto n = ::write(ports_pipe[1], &port, sizeof port);
    }
    ::close(ports_pipe[1]);
    ::pause();
    ::_exit(0);
  }
  ::close(ports_pipe[1]);
  std::vector<live::Endpoint> eps;
  for (int r = 0; r < ranks; ++r) {
    int port = 0;
    if (::read(ports_pipe[0], &port, sizeof port) != sizeof port) {
      ::kill(child, SIGKILL);
      throw std::runtime_error("the agent process did not start");
    }
    eps.push_back(live::Endpoint{false, "127.0.0.1", port, {}});
  }
  ::close(ports_pipe[0]);
  const std::string rec_path = (dir / "ingest.oomlive").string();
  live::LiveSession session;
  for (auto& r : live::default_alert_rules()) session.add_rule(r);
  session.start_recording(rec_path);
  live::LiveClient client(eps, session);
  client.start();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // connect and settle
  const std::size_t samples0 =
      session.read([](const live::Store& s, const live::AlertEngine&) { return s.sample_count(); });
  const auto bytes0 = std::filesystem::file_size(rec_path);
  const double cpu0 = own_cpu_seconds();
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu = own_cpu_seconds() - cpu0;
  const std::size_t samples = session.read([](const live::Store& s, const live::AlertEngine&) {
    return s.sample_count();
  }) - samples0;
  client.stop();
  session.stop_recording();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  const auto bytes = std::filesystem::file_size(rec_path) - bytes0;
  std::printf(
      "ingest: %d agents at 10 Hz over loopback for %.1f s: %zu samples (%.0f/s), "
      "client+store+alerts+recorder "
      "CPU %.2f%% of one core\n",
      ranks, wall, samples, double(samples) / wall, 100.0 * cpu / wall);
  std::printf(
      "record: %.0f bytes per rank-hour (%llu bytes for %d ranks over %.1f s, gzip-flushed every second)\n",
      double(bytes) / ranks / (wall / 3600.0), static_cast<unsigned long long>(bytes), ranks, wall);

  // --- open: a 24 h recording of one rank at 10 Hz.
  const std::string day_path = (dir / "day.oomlive").string();
  {
    live::Recorder rec(day_path, 1'000'000);
    rec.on_endpoint(0, "127.0.0.1:7070");
    live::Hello h;
    h.backend = "cuda";
    rec.on_hello(0, h);
    TrainingLike series(7);
    std::uint64_t jitter = 88172645463325252ull;
    std::int64_t t = 1'700'000'000'000'000'000;
    const std::int64_t n = std::int64_t(hours) * 3600 * 10;
    for (std::int64_t i = 0; i < n; ++i) {
      jitter ^= jitter << 13, jitter ^= jitter >> 7, jitter ^= jitter << 17;
      t += 100'000'000 + static_cast<std::int64_t>(jitter % 4'000'000);
      live::Sample s;
      series.next(s, t);
      rec.on_sample(0, s);
    }
  }
  const auto day_bytes = std::filesystem::file_size(day_path);
  live::LiveSession opened;
  for (auto& r : live::default_alert_rules()) opened.add_rule(r);
  const auto o0 = Clock::now();
  const live::ReplayInfo info = live::replay_recording(day_path, opened);
  const double open_s = std::chrono::duration<double>(Clock::now() - o0).count();
  std::printf(
      "open: a %d h recording of one rank at 10 Hz (%llu samples, %.1f MB, %.0f bytes per rank-hour) opened "
      "into the store and alerts in %.2f s\n",
      hours, static_cast<unsigned long long>(info.samples), double(day_bytes) / 1e6,
      double(day_bytes) / hours, open_s);
  std::filesystem::remove_all(dir);
  return 0;
}

Runner define_bench_live(CLI::App& app) {
  auto o = std::make_shared<LiveBenchOptions>();
  app.footer(
      "Starts N C++ agents in a child process serving a training-like series at 10 Hz over loopback,\n"
      "attaches to all of them with the default alerts and a recorder for S seconds and prints this\n"
      "process's CPU share of one core and the recording's bytes per rank-hour; then writes an H-hour\n"
      "recording of one rank and times opening it.");
  app.add_option("--ranks", o->ranks, "agents to start (default 64)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  app.add_option("--seconds", o->seconds, "seconds to attach (default 20)")
      ->type_name("S")
      ->check(CLI::PositiveNumber);
  app.add_option("--hours", o->hours, "hours of the recording to open (default 24)")
      ->type_name("H")
      ->check(CLI::PositiveNumber);
  app.add_flag("--quick", o->quick, "8 agents, 4 s, 1 h (options given too override it)");
  return [o] { return run_bench_live(*o); };
}

}  // namespace

OOMSCOPE_BENCH(Command{"live",
                       "live attach: ingest of N agents at 10 Hz, recording size, opening a day's recording",
                       define_bench_live});

}  // namespace oomscope::cli
