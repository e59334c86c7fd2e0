#include "app/cli/bench_support.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "app/cli/command.h"
#include "core/util/bytes.h"

extern char** environ;

namespace oomscope::cli {

namespace fs = std::filesystem;

fs::path find_source_tree(const std::string& marker) {
  if (const char* env = std::getenv("OOMSCOPE_SOURCE_DIR")) return env;
  std::error_code ec;
  if (fs::exists(marker, ec)) return fs::current_path();
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
    if (fs::exists(p / marker, ec)) return p;
  return fs::current_path();
}

double cpu_seconds(const rusage& ru) {
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

ChildRun run_in_child(const std::function<std::pair<int, std::string>()>& work) {
  ChildRun r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.message = "pipe failed";
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const auto [code, msg] = work();
    [[maybe_unused]] auto n = write(fds[1], msg.data(), msg.size());
    close(fds[1]);
    _exit(code);
  }
  close(fds[1]);
  r.started = true;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    r.message.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  rusage ru{};
  wait4(pid, &r.status, 0, &ru);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.max_rss_kib = ru.ru_maxrss;
  r.cpu_s = cpu_seconds(ru);
  return r;
}

std::string run_process(const std::vector<std::string>& argv, int& status, long& rss_kib, double* cpu_s) {
  status = -1;
  int fds[2];
  if (pipe(fds) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  if (rc != 0) return out;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  rss_kib = ru.ru_maxrss;
  if (cpu_s) *cpu_s = cpu_seconds(ru);
  return out;
}

std::uint64_t parse_bench_size(const std::string& option, const std::string& text) {
  const ParsedBytes parsed = parse_byte_size(text);
  if (!parsed) throw UsageError{option + ": " + parsed.error};
  if (parsed.bytes < 1) throw UsageError{option + ": '" + text + "' is not a size; give at least one byte"};
  return static_cast<std::uint64_t>(parsed.bytes);
}

}  // namespace oomscope::cli
