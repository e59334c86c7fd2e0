#pragma once
// What the benchmarks share: finding the source tree (for the Python comparison scripts), running a child
// process with its output, exit status, max RSS and CPU time, CPU seconds from a rusage, and size options.

#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace oomscope::cli {

// The source tree: $OOMSCOPE_SOURCE_DIR, else the working folder or a folder above the executable
// (build/<dir>/app/cli/oomscope-cli) that holds `marker` (a path relative to the tree's root).
std::filesystem::path find_source_tree(const std::string& marker);

// User + system CPU seconds of a rusage.
double cpu_seconds(const rusage& ru);

// Runs argv (argv[0] a full path) and returns its stdout; its wait status, max RSS and (when asked) CPU
// seconds through the out-parameters. status is -1 when the program could not be started.
std::string run_process(const std::vector<std::string>& argv, int& status, long& rss_kib,
                        double* cpu_s = nullptr);

// What a function run in a forked child left behind: the message it wrote back, how it ended, and the
// child's own wall time (fork to reap), CPU seconds and max RSS.
struct ChildRun {
  bool started = false;  // false when no pipe could be made (message says so)
  int status = 0;        // the wait status
  std::string message;
  double wall_s = 0;
  double cpu_s = 0;
  long max_rss_kib = 0;

  bool ok() const { return started && WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

// Runs work() in a forked child, so the RSS and CPU measured are the work's alone. work returns the exit
// code and a message, which reaches the parent through a pipe; work catches its own exceptions.
ChildRun run_in_child(const std::function<std::pair<int, std::string>()>& work);

// A size for a bench option in the byte-size grammar (core/util/bytes.h). Throws UsageError naming the
// option on anything the grammar refuses or a size below one byte.
std::uint64_t parse_bench_size(const std::string& option, const std::string& text);

}  // namespace oomscope::cli
