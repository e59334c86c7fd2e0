// `oomscope-cli mcp`: a Model Context Protocol server on standard input and output, so that an AI
// assistant asks oomscope about memory files instead of guessing (docs/mcp.md). The protocol is
// core/mcp; the tools are app/cli/mcp_*.cpp, each calling what its command calls.

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>

#include "app/cli/command.h"
#include "app/cli/mcp_tools.h"
#include "core/mcp/line_reader.h"
#include "core/mcp/output_channel.h"
#include "core/mcp/server.h"
#include "core/util/error.h"
#include "oomscope_version.h"  // generated: cmake/OomscopeVersion.cmake

namespace oomscope::cli {

namespace {

// A line longer than this is skipped and answered with an error: no request needs more.
constexpr std::size_t kMaxLine = std::size_t{4} << 20;
// Tool calls running at once; one more is answered "busy".
constexpr std::size_t kMaxCalls = 4;

struct McpOptions {
  std::size_t max_calls = kMaxCalls;
};

int run_mcp(const McpOptions& o) {
  // The protocol owns the real standard output; anything else that writes to stdout (a library, a stray
  // print) lands on stderr instead of corrupting the message stream.
  const int protocol_fd = ::dup(STDOUT_FILENO);
  if (protocol_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw Error(ErrorKind::Io, "<stdout>", "cannot set up standard output for the MCP messages");
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away is a failed write, not a killed server
  mcp::OutputChannel out(protocol_fd);
  mcp::ServerInfo info;
  info.name = "oomscope";
  info.title = "oomscope: GPU out-of-memory debugger";
  info.version = OOMSCOPE_VERSION_STRING;
  info.instructions =
      "oomscope explains GPU out-of-memory failures from the files a run leaves: JAX/XLA profiler captures "
      "(.xplane.pb), PyTorch allocator snapshots (.pickle), Kineto traces, memory timelines and JAX memory "
      "profiles. Start with info on a file, then report for the diagnosis with its fixes; diff compares "
      "two snapshots, simulate models split-and-retry training, live reads running agents or a recording. "
      "Figures are tagged read, measured or derived; paths are files on this machine.";
  mcp::Server server(std::move(info), mcp_tools(), out, o.max_calls);
  mcp::LineReader in(STDIN_FILENO, kMaxLine);
  server.serve(in);
  ::close(protocol_fd);
  return 0;
}

Runner define_mcp(CLI::App& app) {
  auto o = std::make_shared<McpOptions>();
  app.footer(
      "Serves the Model Context Protocol (revision 2025-11-25, also 2025-06-18, 2025-03-26 and 2024-11-05)\n"
      "on standard input and output, one JSON-RPC message a line, until standard input ends. Tools: info,\n"
      "report, diff, simulate and live; each returns the text and the --json document of its command.\n"
      "Configure a client with the command `oomscope-cli` and the arguments [\"mcp\"]; docs/mcp.md.");
  add_count(app, "--max-calls", o->max_calls, "tool calls that may run at once (default 4)");
  return [o] { return run_mcp(*o); };
}

}  // namespace

OOMSCOPE_COMMAND(Command{"mcp", "serve every analysis to AI assistants over MCP (stdin/stdout)", define_mcp});

}  // namespace oomscope::cli
