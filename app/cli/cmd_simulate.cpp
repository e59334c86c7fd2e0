// `oomscope-cli simulate`: runs the split-and-retry simulator headless and prints its totals.

#include <charconv>
#include <iostream>

#include "app/cli/command.h"
#include "app/cli/sim_report.h"
#include "core/sim/simulator.h"
#include "core/sim/trace_io.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

using namespace oomscope::sim;

// The exit code of a run that a real trainer would not survive (a bug under --catch oom-only).
constexpr int kExitCrash = 4;

const char* const kUsage =
    "usage: oomscope-cli simulate [OPTIONS]\n"
    "\n"
    "Simulates split-and-retry training under a GPU memory budget: the batch is tried whole, split per scene\n"
    "when it fails, then bisected in space, and the totals show what that costs and what reached the\n"
    "optimizer step. Exit code 4 when the run crashes (a bug under --catch oom-only).\n"
    "\n"
    "policy (a preset, then any toggle overrides it):\n"
    "  --preset original|corrected   original: the reference's loop (default); corrected: every fix on\n"
    "  --catch oom-only|everything   which exceptions are caught and answered with a split\n"
    "  --grad last-fragment|accumulate   zero_grad per fragment, or accumulate until the step\n"
    "  --split midpoint|median       spatial split point: bounding-box midpoint or median point\n"
    "  --axis alternate-xy|longest   spatial split axis: x, y, x... or the box's longest extent\n"
    "  --floor N                     spatial halves with <= N points are dropped (default 500)\n"
    "scenes:\n"
    "  --scenes N                    scenes per epoch (default 64; with a sizes file: the first N)\n"
    "  --batch B                     scenes per batch (default 4)\n"
    "  --dist uniform|heavy-tailed|FILE   point counts: uniform 20,000..300,000 (default), heavy-tailed,\n"
    "                                or a file: one count per line, or CSV with a 'size' column\n"
    "  --epochs E                    (default 1)\n"
    "  --seed S                      (default 1)\n"
    "memory (byte values accept B, KiB, MiB, GiB, TiB, K/M/G/T = binary, KB/MB/GB decimal):\n"
    "  --budget BYTES                GPU memory budget (default 4GiB)\n"
    "  --bytes-per-point BYTES       (default 12KiB)\n"
    "  --fixed-bytes BYTES           per attempt: weights, optimizer state (default 1.5GiB)\n"
    "  --frag-penalty BYTES          unusable after an OOM until an attempt succeeds (default 256MiB)\n"
    "fault injection:\n"
    "  --bug-scene K                 a bug in scene K, raised by every attempt containing its points\n"
    "  --bug-kind shape|nan          a shape mismatch (default) or a NaN loss\n"
    "output:\n"
    "  --trace FILE                  write the event trace (JSON lines, docs/sim-trace-format.md)\n"
    "  --json                        totals as JSON instead of text\n";

std::int64_t parse_int(const std::string& opt, const std::string& v, std::int64_t min) {
  std::int64_t x = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || ptr != v.data() + v.size())
    throw UsageError{opt + " expects an integer, got '" + v + "'"};
  if (x < min) throw UsageError{opt + " must be >= " + std::to_string(min) + ", got " + v};
  return x;
}

std::int64_t parse_bytes(const std::string& opt, const std::string& v) {
  const auto b = parse_byte_size(v);
  if (!b) throw UsageError{opt + " expects a byte size such as 4GiB, 2.5GiB or 512MiB, got '" + v + "'"};
  return *b;
}

template <typename T, typename Parse>
T parse_choice(const std::string& opt, const std::string& v, Parse parse, const char* allowed) {
  const auto x = parse(v);
  if (!x) throw UsageError{opt + " expects " + allowed + ", got '" + v + "'"};
  return *x;
}

struct Options {
  SimConfig config;
  std::string trace;
  bool json = false;
};

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  SimConfig& c = o.config;
  // The preset first, so that toggles given before or after it override it.
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--preset") {
      const auto p = preset_by_name(args[i + 1]);
      if (!p) throw UsageError{"--preset expects original or corrected, got '" + args[i + 1] + "'"};
      c.policy = *p;
    }
  bool scenes_given = false, bug_kind_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      o.json = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) throw UsageError{"unexpected argument '" + a + "'"};
    if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
    const std::string& v = args[++i];
    if (a == "--preset") continue;
    else if (a == "--catch") c.policy.catch_mode = parse_choice<CatchMode>(a, v, parse_catch_mode, "oom-only or everything");
    else if (a == "--grad") c.policy.grad = parse_choice<GradMode>(a, v, parse_grad_mode, "last-fragment or accumulate");
    else if (a == "--split") c.policy.split = parse_choice<SplitPoint>(a, v, parse_split_point, "midpoint or median");
    else if (a == "--axis") c.policy.axis = parse_choice<AxisRule>(a, v, parse_axis_rule, "alternate-xy or longest");
    else if (a == "--floor") c.policy.floor = parse_int(a, v, 0);
    else if (a == "--scenes") c.scenes.count = parse_int(a, v, 1), scenes_given = true;
    else if (a == "--batch") c.batch = parse_int(a, v, 1);
    else if (a == "--epochs") c.epochs = parse_int(a, v, 1);
    else if (a == "--seed") c.seed = static_cast<std::uint64_t>(parse_int(a, v, 0));
    else if (a == "--budget") c.memory.budget = parse_bytes(a, v);
    else if (a == "--bytes-per-point") c.memory.bytes_per_point = parse_bytes(a, v);
    else if (a == "--fixed-bytes") c.memory.fixed_bytes = parse_bytes(a, v);
    else if (a == "--frag-penalty") c.memory.fragmentation_penalty = parse_bytes(a, v);
    else if (a == "--bug-scene") c.fault.scene = parse_int(a, v, 0);
    else if (a == "--bug-kind") {
      c.fault.kind = parse_choice<BugKind>(a, v, parse_bug_kind, "shape or nan");
      bug_kind_given = true;
    } else if (a == "--trace") o.trace = v;
    else if (a == "--dist") {
      if (v == "uniform") c.scenes.dist = SizeDist::Uniform;
      else if (v == "heavy-tailed") c.scenes.dist = SizeDist::HeavyTailed;
      else {
        c.scenes.dist = SizeDist::File;
        c.scenes.sizes_file = v;
      }
    } else {
      throw UsageError{"unknown option '" + a + "'"};
    }
  }
  if (c.scenes.dist == SizeDist::File && !scenes_given) c.scenes.count = 0;  // every size in the file
  if (c.fault.scene >= 0 && !bug_kind_given) c.fault.kind = BugKind::ShapeMismatch;
  if (bug_kind_given && c.fault.kind != BugKind::None && c.fault.scene < 0)
    throw UsageError{"--bug-kind needs --bug-scene K"};
  if (c.memory.budget < 1) throw UsageError{"--budget must be > 0"};
  return o;
}

int run_simulate(const std::vector<std::string>& args) {
  Options o = parse_options(args);
  try {
    validate(o.config);
  } catch (const Error& e) {
    throw UsageError{e.message()};
  }
  Simulator sim(o.config);  // reads a sizes file: oomscope::Error names the file and line
  sim.run_to_end();
  if (!o.trace.empty())
    write_trace_file(o.trace, sim.config(), sim.log(), sim.totals(), sim.baselines());
  if (o.json)
    std::cout << sim_report_json(sim).dump(2) << "\n";
  else
    print_sim_report(std::cout, sim);
  if (sim.crashed()) {
    const auto& c = sim.config();
    std::cerr << "oomscope-cli simulate: scene " << c.fault.scene << " raised "
              << (c.fault.kind == BugKind::ShapeMismatch ? "a shape mismatch" : "a NaN loss") << " (trace event "
              << sim.totals().crash_event << "); with --catch oom-only the trainer crashes here (with --catch "
              << "everything the same bug would be split down to the floor and dropped without a trace)\n";
    return kExitCrash;
  }
  return 0;
}

}  // namespace

OOMSCOPE_COMMAND(Command{"simulate", "simulate split-and-retry training under a GPU memory budget", kUsage,
                         run_simulate});

}  // namespace oomscope::cli
