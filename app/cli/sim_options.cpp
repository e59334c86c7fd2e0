// The options of `oomscope-cli simulate`, read in the order given (sim_options.h).

#include "app/cli/sim_options.h"

#include <charconv>
#include <cmath>

#include "app/cli/command.h"
#include "core/sim/model_file.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::cli {

using namespace oomscope::sim;

namespace {

std::int64_t parse_int(const std::string& opt, const std::string& v, std::int64_t min) {
  std::int64_t x = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec == std::errc::result_out_of_range && ptr == v.data() + v.size())
    throw UsageError{opt + " is out of range: '" + v + "'"};
  if (ec != std::errc() || ptr != v.data() + v.size())
    throw UsageError{opt + " expects an integer, got '" + v + "'"};
  if (x < min) throw UsageError{opt + " must be >= " + std::to_string(min) + ", got " + v};
  return x;
}

// A seed: any 64-bit unsigned integer (0 to 18446744073709551615).
std::uint64_t parse_seed(const std::string& opt, const std::string& v) {
  std::uint64_t x = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec == std::errc::result_out_of_range && ptr == v.data() + v.size())
    throw UsageError{opt + " must be in 0..18446744073709551615, got '" + v + "'"};
  if (ec != std::errc() || ptr != v.data() + v.size())
    throw UsageError{opt + " expects an unsigned integer, got '" + v + "'"};
  return x;
}

std::int64_t parse_bytes(const std::string& opt, const std::string& v) {
  const ParsedBytes b = oomscope::parse_byte_size(v);
  if (!b) throw UsageError{opt + ": " + b.error};
  return b.bytes;
}

// "50%", "0.5" or "500" per mille... kept simple: a percentage 0..100 with an optional '%'.
std::int64_t parse_permille(const std::string& opt, const std::string& v) {
  std::string t = v;
  if (!t.empty() && t.back() == '%') t.pop_back();
  double x = -1;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), x);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !(x >= 0 && x <= 100))
    throw UsageError{opt + " expects a percentage from 0 to 100, got '" + v + "'"};
  return static_cast<std::int64_t>(std::llround(x * 10));
}

// A value named in the enum's table (core/util/enum_names.h); the error lists the table's names.
template <typename T, std::size_t N>
T parse_choice(const std::string& opt, const std::string& v, const EnumName<T> (&names)[N]) {
  const std::optional<T> x = parse_enum(names, v);
  if (!x) throw UsageError{opt + " expects " + enum_choices(names) + ", got '" + v + "'"};
  return *x;
}

}  // namespace

SimOptions parse_sim_options(const std::vector<std::string>& args) {
  SimOptions o;
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
    if (a.rfind("--", 0) != 0) throw UsageError{"unexpected argument '" + a + "'"};
    if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
    const std::string& v = args[++i];
    if (a == "--preset")
      continue;
    else if (a == "--catch")
      c.policy.catch_mode = parse_choice(a, v, kCatchModeNames);
    else if (a == "--grad")
      c.policy.grad = parse_choice(a, v, kGradModeNames);
    else if (a == "--split")
      c.policy.split = parse_choice(a, v, kSplitPointNames);
    else if (a == "--axis")
      c.policy.axis = parse_choice(a, v, kAxisRuleNames);
    else if (a == "--floor")
      c.policy.floor = parse_int(a, v, 0);
    else if (a == "--scenes")
      c.scenes.count = parse_int(a, v, 1), scenes_given = true;
    else if (a == "--batch")
      c.batch = parse_int(a, v, 1);
    else if (a == "--epochs")
      c.epochs = parse_int(a, v, 1);
    else if (a == "--max-batches")
      c.max_batches = parse_int(a, v, 0);
    else if (a == "--model")
      apply_model(read_model_file(v), c);
    else if (a == "--seed")
      c.seed = parse_seed(a, v);
    else if (a == "--on-floor")
      c.policy.on_floor = parse_choice(a, v, kFloorActionNames);
    else if (a == "--norm")
      c.policy.norm = parse_choice(a, v, kNormModeNames);
    else if (a == "--empty-cache-relief")
      c.memory.empty_cache_relief_permille = parse_permille(a, v);
    else if (a == "--budget")
      c.memory.budget = parse_bytes(a, v);
    else if (a == "--bytes-per-point")
      c.memory.bytes_per_point = parse_bytes(a, v);
    else if (a == "--fixed-bytes")
      c.memory.fixed_bytes = parse_bytes(a, v);
    else if (a == "--frag-penalty")
      c.memory.fragmentation_penalty = parse_bytes(a, v);
    else if (a == "--bug-scene")
      c.fault.scene = parse_int(a, v, 0);
    else if (a == "--bug-kind") {
      c.fault.kind = parse_choice(a, v, kBugKindNames);
      bug_kind_given = true;
    } else if (a == "--trace")
      o.trace = v;
    else if (a == "--sizes") {
      c.scenes.dist = SizeDist::File;
      c.scenes.sizes_file = v;
    } else if (a == "--dist") {
      const auto dist = parse_size_dist(v);
      c.scenes.dist = dist && *dist != SizeDist::File ? *dist : SizeDist::File;
      if (c.scenes.dist == SizeDist::File) c.scenes.sizes_file = v;  // anything else names a sizes file
    } else {
      throw UsageError{"unknown option '" + a + "'"};
    }
  }
  if (c.scenes.dist == SizeDist::File && !scenes_given) c.scenes.count = 0;  // every size in the file
  if (c.fault.scene >= 0 && !bug_kind_given) c.fault.kind = BugKind::ShapeMismatch;
  if (bug_kind_given && c.fault.kind != BugKind::None && c.fault.scene < 0)
    throw UsageError{"--bug-kind needs --bug-scene K"};
  if (bug_kind_given && c.fault.kind == BugKind::None && c.fault.scene >= 0) {
    o.warnings.push_back("--bug-kind none plants no bug; --bug-scene " + std::to_string(c.fault.scene) +
                         " is ignored");
    c.fault.scene = -1;
  }
  if (c.memory.budget < 1) throw UsageError{"--budget must be > 0"};
  return o;
}

// Every option of simulate: name, value placeholder, help. Values are checked by parse_options, in the order
// given, so that toggles override the preset and options after --model override the model.
namespace {

constexpr SimOptionDef kOptions[] = {
    {"--preset", "original|corrected", "original: the reference's loop (default); corrected: every fix on"},
    {"--catch", "oom-only|everything|runtime-error",
     "which exceptions are caught and answered with a split: only OOM; any (the\n"
     "reference); RuntimeError (the reference's earlier handler: swallows a shape\n"
     "mismatch, not a NaN-loss check)"},
    {"--grad", "last-fragment|accumulate",
     "zero_grad per fragment, or accumulate until the step (each fragment's loss scaled\n"
     "by its share of the batch)"},
    {"--split", "midpoint|median", "spatial split point: bounding-box midpoint or median point"},
    {"--axis", "alternate-xy|longest", "spatial split axis: x, y, x... or the box's longest extent"},
    {"--floor", "N", "spatial halves with <= N points are at the floor (default 500)"},
    {"--on-floor", "drop|keep|raise",
     "a half at the floor: dropped (original), trained anyway (corrected; if it still\n"
     "fails its halves are dropped and reported), or an error"},
    {"--norm", "batchnorm|frozen|groupnorm",
     "the model's normalisation: BatchNorm statistics of each fragment (original), frozen\n"
     "running statistics while splitting (corrected), or GroupNorm; counts points\n"
     "normalised by biased or tiny fragments"},
    {"--scenes", "N", "scenes per epoch (default 64; with a sizes file: the first N)"},
    {"--batch", "B", "scenes per batch (default 4)"},
    {"--dist", "uniform|heavy-tailed|FILE",
     "point counts: uniform 20,000..300,000 (default), heavy-tailed, or a file: one count\n"
     "per line, or CSV with a 'size' column"},
    {"--sizes", "FILE", "the same as --dist FILE"},
    {"--epochs", "E", "(default 1)"},
    {"--max-batches", "N", "stop after N batches (a trainer's --steps; default 0: every batch)"},
    {"--seed", "S", "0 to 18446744073709551615 (default 1)"},
    {"--budget", "BYTES", "GPU memory budget (default 4GiB; sizes: docs/byte-sizes.md)"},
    {"--bytes-per-point", "BYTES", "(default 12KiB)"},
    {"--fixed-bytes", "BYTES", "per attempt: weights, optimizer state (default 1.5GiB)"},
    {"--frag-penalty", "BYTES", "left unusable by an OOM after a success (default 256MiB)"},
    {"--empty-cache-relief", "PCT", "share of it each empty_cache() returns (default 50; 0: none)"},
    {"--model", "FILE",
     "a calibrated model (docs/sim-model-format.md, written by oomscope-demo-trainer\n"
     "--calibrate): its fixed bytes, bytes per point and times replace the defaults;\n"
     "options after it override it"},
    {"--bug-scene", "K", "a bug in scene K, raised by every attempt containing its points"},
    {"--bug-kind", "shape|nan|none", "a shape mismatch (default) or a NaN loss"},
    {"--trace", "FILE", "write the event trace as the run goes (docs/sim-trace-format.md)"},
};

}  // namespace

std::span<const SimOptionDef> sim_option_defs() { return kOptions; }

}  // namespace oomscope::cli
