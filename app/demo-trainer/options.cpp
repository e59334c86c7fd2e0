#include "app/demo-trainer/options.h"

#include <charconv>

#include "core/sim/config.h"
#include "core/util/bytes.h"

namespace oomscope::demo {

namespace {

std::int64_t to_int(const std::string& opt, const std::string& v, std::int64_t min) {
  std::int64_t x = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size() || x < min)
    throw UsageError{opt + " expects an integer >= " + std::to_string(min) + ", got '" + v + "'"};
  return x;
}

std::uint64_t to_uint(const std::string& opt, const std::string& v) {
  std::uint64_t x = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size())
    throw UsageError{opt + " expects an integer from 0 to 18446744073709551615, got '" + v + "'"};
  return x;
}

std::int64_t to_bytes(const std::string& opt, const std::string& v) {
  const ParsedBytes b = parse_byte_size(v);
  if (!b) throw UsageError{opt + ": " + b.error};
  return b.bytes;
}

// A value named in the enum's table (core/util/enum_names.h); the error lists the table's names.
template <typename T, std::size_t N>
T choice(const std::string& opt, const std::string& v, const EnumName<T> (&names)[N]) {
  const std::optional<T> x = parse_enum(names, v);
  if (!x) throw UsageError{opt + " expects " + enum_choices(names) + ", got '" + v + "'"};
  return *x;
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  auto& t = o.trainer;
  bool bug_kind_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--resume") {
      t.resume = true;
      continue;
    }
    if (a == "--quiet") {
      o.quiet = true;
      continue;
    }
    if (a == "--no-pool") {
      t.model.scene_pool = false;
      continue;
    }
    if (a == "--calibrate") {  // its file, when given, follows as the next argument (empty when not)
      o.calibrate = true;
      if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
        if (!args[i + 1].empty()) o.calibrate_out = args[i + 1];
        ++i;
      }
      continue;
    }
    if (a.rfind("--", 0) != 0) throw UsageError{"unexpected argument '" + a + "'"};
    if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
    const std::string& v = args[++i];
    if (a == "--steps")
      t.steps = to_int(a, v, 1);
    else if (a == "--budget")
      t.budget = to_bytes(a, v);
    else if (a == "--trace")
      t.trace_path = v;
    else if (a == "--seed")
      t.seed = to_uint(a, v);
    else if (a == "--policy") {
      const auto p = train::policy_by_name(v);
      if (!p) throw UsageError{"--policy expects original or corrected, got '" + v + "'"};
      t.policy = *p;
    } else if (a == "--catch")
      t.policy.catch_mode = choice(a, v, sim::kCatchModeNames);
    else if (a == "--grad")
      t.policy.grad = choice(a, v, sim::kGradModeNames);
    else if (a == "--split")
      t.policy.split = choice(a, v, sim::kSplitPointNames);
    else if (a == "--axis")
      t.policy.axis = choice(a, v, sim::kAxisRuleNames);
    else if (a == "--floor")
      t.policy.floor = to_int(a, v, 0);
    else if (a == "--on-floor")
      t.policy.on_floor = choice(a, v, sim::kFloorActionNames);
    else if (a == "--norm")
      t.policy.norm = choice(a, v, sim::kNormModeNames);
    else if (a == "--model")
      t.model_file = v;
    else if (a == "--out")
      o.calibrate_out = v;
    else if (a == "--sizes")
      t.sizes_file = v, t.dist = sim::SizeDist::File, t.scenes = 0;
    else if (a == "--dist") {
      const auto dist = sim::parse_size_dist(v);
      if (!dist || *dist == sim::SizeDist::File)  // a sizes file comes with --sizes FILE
        throw UsageError{"--dist expects uniform or heavy-tailed, got '" + v + "'"};
      t.dist = *dist;
    } else if (a == "--scenes")
      t.scenes = to_int(a, v, 1);
    else if (a == "--batch")
      t.batch = to_int(a, v, 1);
    else if (a == "--epochs")
      t.epochs = to_int(a, v, 1);
    else if (a == "--bug-scene")
      t.bug_scene = to_int(a, v, 0);
    else if (a == "--bug-kind")
      t.bug = choice(a, v, sim::kBugKindNames), bug_kind_given = true;
    else if (a == "--width")
      t.model.width = static_cast<int>(to_int(a, v, 1));
    else if (a == "--lr") {
      try {
        std::size_t used = 0;
        t.model.lr = std::stod(v, &used);
        if (used != v.size()) throw std::invalid_argument(v);
      } catch (const std::exception&) {
        throw UsageError{"--lr expects a number, got '" + v + "'"};
      }
    } else if (a == "--threads")
      t.model.threads = static_cast<int>(to_int(a, v, 1));
    else if (a == "--checkpoint")
      t.checkpoint_path = v;
    else if (a == "--checkpoint-every")
      t.checkpoint_every = to_int(a, v, 1);
    else if (a == "--restart-above")
      t.restart_above = to_bytes(a, v);
    else if (a == "--hold-per-step")
      t.hold_per_step = to_bytes(a, v);
    else if (a == "--leak-per-step")
      t.leak_per_step = to_bytes(a, v);
    else if (a == "--weights-out")
      t.weights_out = v;
    else if (a == "--checkpoint-before-oom")
      o.checkpoint_before_oom = to_int(a, v, 1);
    else if (a == "--serve")
      o.serve = v;
    else if (a == "--metrics-port")
      o.metrics = v;
    else if (a == "--job")
      o.job = v;
    else
      throw UsageError{"unknown option '" + a + "'"};
  }
  if (t.bug_scene >= 0 && !bug_kind_given) t.bug = sim::BugKind::ShapeMismatch;
  if (bug_kind_given && t.bug != sim::BugKind::None && t.bug_scene < 0)
    throw UsageError{"--bug-kind needs --bug-scene K"};
  if (bug_kind_given && t.bug == sim::BugKind::None && t.bug_scene >= 0)
    throw UsageError{"--bug-kind none with --bug-scene: no bug would be planted"};
  if (o.calibrate && o.calibrate_out.empty())
    throw UsageError{"--calibrate needs a file: --calibrate FILE or --out FILE"};
  if (t.resume && t.checkpoint_path.empty()) throw UsageError{"--resume needs --checkpoint FILE"};
  if ((t.checkpoint_every > 0 || t.restart_above > 0) && t.checkpoint_path.empty())
    throw UsageError{"--checkpoint-every and --restart-above need --checkpoint FILE"};
  if (o.checkpoint_before_oom > 0 && t.checkpoint_path.empty())
    throw UsageError{"--checkpoint-before-oom needs --checkpoint FILE"};
  return o;
}

namespace {

struct OptionDef {
  const char* name;
  const char* value;  // "" for a flag
  const char* help;
};

constexpr OptionDef kOptions[] = {
    {"--steps", "N", "optimizer steps (batches) to run (default: every batch of every epoch)"},
    {"--budget", "BYTES",
     "memory budget, e.g. 64MiB; 0: none (default 192MiB: scenes fit up to ~218,000 points)"},
    {"--trace", "FILE", "write every attempt in the simulator's trace format (JSON lines)"},
    {"--seed", "S", "scenes, order and initial weights (default 1)"},
    {"--policy", "original|corrected",
     "the simulator's presets (default original); options after it change single toggles"},
    {"--catch", "oom-only|runtime-error|everything", "which exceptions are answered with a split"},
    {"--grad", "last-fragment|accumulate", "zero_grad per fragment, or accumulate until the step"},
    {"--split", "midpoint|median", "spatial split point"},
    {"--axis", "alternate-xy|longest", "spatial split axis"},
    {"--floor", "N", "spatial halves with <= N points are dropped (default 500)"},
    {"--on-floor", "drop|keep|raise", "drop (the reference), keep (train it anyway), raise (stop, exit 4)"},
    {"--sizes", "FILE", "scene sizes, one per line (or CSV with a size column), as the simulator reads them"},
    {"--dist", "uniform|heavy-tailed", "when no --sizes (default uniform)"},
    {"--scenes", "N", "scenes per epoch (default 8; with --sizes: the first N)"},
    {"--batch", "N", "scenes per batch (default 4)"},
    {"--epochs", "N", "(default 1)"},
    {"--bug-scene", "K", "plant a bug in scene K"},
    {"--bug-kind", "shape|nan|none", "the planted bug (default shape)"},
    {"--width", "W", "model width (default 16)"},
    {"--no-pool", "", "drop the per-scene global feature"},
    {"--lr", "X", "SGD learning rate (default 0.01, momentum 0.9)"},
    {"--threads", "N", "intra-op threads (default 1: bitwise reproducible)"},
    {"--checkpoint", "FILE",
     "checkpoint path (written atomically): every --checkpoint-every N steps, and at the\n"
     "end when --steps stops before the last batch"},
    {"--checkpoint-every", "N", "steps between checkpoints"},
    {"--resume", "", "continue from --checkpoint (bitwise identical to an uninterrupted run)"},
    {"--restart-above", "BYTES",
     "at a step boundary with more live bytes, checkpoint and re-execute with --resume"},
    {"--checkpoint-before-oom", "N",
     "checkpoint and re-execute with --resume when the OOM forecast over this run's own\n"
     "step figures names an OOM within N steps (derived; docs/live.md)"},
    {"--hold-per-step", "BYTES",
     "keep this much allocated after every step (memory that only a restart frees)"},
    {"--leak-per-step", "BYTES",
     "keep this much of each step's tensors alive (a copy of its input features: the\n"
     "'gradients kept every step' bug), so that the run runs out of memory by itself"},
    {"--weights-out", "FILE", "write the final weights (raw float32)"},
    {"--out", "FILE", "the model file of --calibrate"},
    {"--model", "FILE",
     "a calibrated model file: its figures go into the trace header for the simulator's\n"
     "prediction (default: memory figures measured at start-up)"},
    {"--norm", "batchnorm|frozen|groupnorm",
     "recorded in the trace header only (this model has no normalisation layer)"},
    {"--quiet", "", "print steps only"},
    {"--serve", "PORT|HOST:PORT|unix:PATH",
     "serve live stats for `oomscope-cli watch` or the GUI's Live page (127.0.0.1 by\n"
     "default; HOST:PORT elsewhere needs $OOMSCOPE_TOKEN)"},
    {"--metrics-port", "PORT|HOST:PORT",
     "also serve Prometheus /metrics (docs/prometheus.md; 127.0.0.1 by default;\n"
     "without --serve the live stats go to a free loopback port)"},
    {"--job", "NAME", "the `job` label on /metrics (default $OOMSCOPE_JOB)"},
};

}  // namespace

void define_options(CLI::App& app, std::vector<std::string>& given) {
  app.description(
      "oomscope-demo-trainer: trains a small PointNet-style segmentation model (LibTorch, CPU) on synthetic\n"
      "clustered scenes with split-and-retry under a memory budget: the CPU allocator is replaced by one\n"
      "that throws c10::OutOfMemoryError past --budget.");
  app.footer(
      "Exit codes: 0 done, 1 bad input, 2 bad arguments, 4 the run crashed (an uncaught exception,\n"
      "on-floor raise).");
  app.get_formatter()->column_width(34);
  app.set_help_flag("-h,--help", "print this help");
  // Every option is recorded as given, in order, and read by parse_options: toggles after --policy
  // override it, as documented.
  for (const OptionDef& d : kOptions) {
    const std::string name = d.name;
    if (*d.value == '\0') {
      app.add_flag_callback(
             name, [&given, name] { given.push_back(name); }, d.help)
          ->trigger_on_parse();
      continue;
    }
    app.add_option_function<std::string>(
           name,
           [&given, name](const std::string& v) {
             given.push_back(name);
             given.push_back(v);
           },
           d.help)
        ->type_name(d.value)
        ->trigger_on_parse()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  app.add_option_function<std::string>(
         "--calibrate",
         [&given](const std::string& v) {
           given.push_back("--calibrate");
           given.push_back(v);  // empty when no file followed
         },
         "measure fixed bytes, bytes and time per point; write the simulator's model file\n"
         "(docs/sim-model-format.md) to FILE; also --calibrate --out FILE")
      ->type_name("[FILE]")
      ->expected(0, 1)
      ->trigger_on_parse();
}

}  // namespace oomscope::demo
