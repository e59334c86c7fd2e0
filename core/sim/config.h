#pragma once
// Configuration of the split-and-retry simulator: the policy toggles of docs/simulator-model.md, the scene
// source, the memory and time models and the fault injection. Plain values; validate() says what is wrong.
//
// How the defaults were chosen (they must make the interesting behaviour visible, not be "realistic" for
// any one model):
//  - memory: 12 KiB of activations+gradients per point and 1.5 GiB fixed per attempt (weights, optimizer
//    state, workspace) in a 4 GiB budget. A single scene then fits up to (4 GiB - 1.5 GiB) / 12 KiB =
//    218,453 points, so about 30 % of `uniform` scenes (20,000 to 300,000 points) need a spatial split,
//    and a batch of 4 such scenes (640,000 points on average) OOMs as a batch almost every time.
//  - fragmentation: after an OOM 256 MiB of the budget stays unusable until an attempt succeeds, so scenes
//    of 196,608 to 218,453 points fit in a clean allocator but fail right after an OOM (the retry that
//    "should" fit and does not).
//  - time: 0.35 us forward + 0.65 us backward per point (a 300,000-point room trains in 0.3 s), 5 ms fixed
//    per attempt, an OOM stops the forward pass where memory ran out (needed/available fraction), every
//    retry pays 20 ns per point to copy the fragment back to the host plus 2 ms for empty_cache().
//  - 64 scenes in batches of 4: 16 optimizer steps per epoch, enough for every outcome to appear and small
//    enough for the GUI tree to stay legible.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/enum_names.h"

namespace oomscope::sim {

// OomOnly: only an out-of-memory error (typed, c10::OutOfMemoryError). RuntimeError: the reference's
// earlier `except RuntimeError`, which also swallows shape mismatches (a RuntimeError in PyTorch) but not a
// NaN-loss check (FloatingPointError). Everything: the reference's `except Exception`.
enum class CatchMode : std::uint8_t { OomOnly, Everything, RuntimeError };
enum class GradMode : std::uint8_t { LastFragment, Accumulate };
enum class SplitPoint : std::uint8_t { Midpoint, Median };
enum class AxisRule : std::uint8_t { AlternateXY, Longest };
// What happens to a spatial half with <= floor points: dropped (the reference, with a log line), kept and
// trained anyway (its gradient is not lost), or raised as an error that stops the run.
enum class FloorAction : std::uint8_t { Drop, Keep, Raise };
// The model's normalisation layers: BatchNorm (statistics of each fragment: biased on spatial halves and
// degenerate on small ones), BatchNorm with frozen running statistics while splitting, or GroupNorm
// (per-point, independent of the fragment).
enum class NormMode : std::uint8_t { BatchNorm, Frozen, GroupNorm };
enum class BugKind : std::uint8_t { None, ShapeMismatch, NanLoss };
enum class SizeDist : std::uint8_t { Uniform, HeavyTailed, File };

// The names used on the command line, in traces and in JSON: written once here; to_string and the parse_*
// functions below read these tables (core/util/enum_names.h).
inline constexpr EnumName<CatchMode> kCatchModeNames[] = {{CatchMode::OomOnly, "oom-only"},
                                                          {CatchMode::Everything, "everything"},
                                                          {CatchMode::RuntimeError, "runtime-error"}};
inline constexpr EnumName<GradMode> kGradModeNames[] = {{GradMode::LastFragment, "last-fragment"},
                                                        {GradMode::Accumulate, "accumulate"}};
inline constexpr EnumName<SplitPoint> kSplitPointNames[] = {{SplitPoint::Midpoint, "midpoint"},
                                                            {SplitPoint::Median, "median"}};
inline constexpr EnumName<AxisRule> kAxisRuleNames[] = {{AxisRule::AlternateXY, "alternate-xy"},
                                                        {AxisRule::Longest, "longest"}};
inline constexpr EnumName<FloorAction> kFloorActionNames[] = {
    {FloorAction::Drop, "drop"}, {FloorAction::Keep, "keep"}, {FloorAction::Raise, "raise"}};
inline constexpr EnumName<NormMode> kNormModeNames[] = {
    {NormMode::BatchNorm, "batchnorm"}, {NormMode::Frozen, "frozen"}, {NormMode::GroupNorm, "groupnorm"}};
// "shape-mismatch" and "nan-loss" are aliases the parser accepts.
inline constexpr EnumName<BugKind> kBugKindNames[] = {{BugKind::None, "none"},
                                                      {BugKind::ShapeMismatch, "shape"},
                                                      {BugKind::NanLoss, "nan"},
                                                      {BugKind::ShapeMismatch, "shape-mismatch"},
                                                      {BugKind::NanLoss, "nan-loss"}};
inline constexpr EnumName<SizeDist> kSizeDistNames[] = {
    {SizeDist::Uniform, "uniform"}, {SizeDist::HeavyTailed, "heavy-tailed"}, {SizeDist::File, "file"}};
static_assert(names_every_value(kCatchModeNames, CatchMode::RuntimeError));
static_assert(names_every_value(kGradModeNames, GradMode::Accumulate));
static_assert(names_every_value(kSplitPointNames, SplitPoint::Median));
static_assert(names_every_value(kAxisRuleNames, AxisRule::Longest));
static_assert(names_every_value(kFloorActionNames, FloorAction::Raise));
static_assert(names_every_value(kNormModeNames, NormMode::GroupNorm));
static_assert(names_every_value(kBugKindNames, BugKind::NanLoss));
static_assert(names_every_value(kSizeDistNames, SizeDist::File));

// The choices that differ between the original procedure and the corrected one.
struct Policy {
  CatchMode catch_mode = CatchMode::OomOnly;
  GradMode grad = GradMode::Accumulate;
  SplitPoint split = SplitPoint::Median;
  AxisRule axis = AxisRule::Longest;
  // A spatial half with <= floor points is dropped; > floor is kept (as in the reference).
  std::int64_t floor = 500;
  FloorAction on_floor = FloorAction::Drop;
  NormMode norm = NormMode::BatchNorm;

  friend bool operator==(const Policy&, const Policy&) = default;
};

// The reference's behaviour: except Exception, zero_grad per fragment, bbox midpoint, x/y alternation.
Policy preset_original();
// Every toggle flipped to its fix; the floor stays 500.
Policy preset_corrected();
// Which preset a policy equals: Custom when it equals neither.
enum class Preset : std::uint8_t { Original, Corrected, Custom };
inline constexpr EnumName<Preset> kPresetNames[] = {
    {Preset::Original, "original"}, {Preset::Corrected, "corrected"}, {Preset::Custom, "custom"}};
static_assert(names_every_value(kPresetNames, Preset::Custom));
Preset preset_of(const Policy& policy);
// The policy of Original or Corrected; nullopt for Custom.
std::optional<Policy> preset_policy(Preset preset);
// "original" | "corrected"; nullopt for anything else.
std::optional<Policy> preset_by_name(std::string_view name);
// "original", "corrected" or "custom".
std::string preset_name(const Policy& policy);

struct SceneSource {
  SizeDist dist = SizeDist::Uniform;
  std::int64_t count = 64;          // scenes per epoch (for File: taken from the file when 0)
  std::string sizes_file;           // File only: one integer per line, or CSV with a `size` column
  std::vector<std::int64_t> sizes;  // File only: filled by Simulator from sizes_file unless already set
};

struct MemoryModel {
  std::int64_t bytes_per_point = 12 * 1024;
  std::int64_t fixed_bytes = 1536LL << 20;           // per attempt: weights, optimizer state, workspace
  std::int64_t budget = 4LL << 30;                   // usable GPU memory
  std::int64_t fragmentation_penalty = 256LL << 20;  // left unusable by an OOM after a success
  // The share (per mille) of the fragmented bytes that each empty_cache() returns: the loop calls it after
  // every caught failure, and an OOM in a freshly flushed allocator leaves no new fragmentation, so the k-th
  // retry in a row sees penalty x (1 - relief)^k. 0 models an allocator empty_cache() cannot help (then a
  // budget under fixed bytes + penalty can fail every retry and drop everything).
  std::int64_t empty_cache_relief_permille = 500;
};

struct TimeModel {
  std::int64_t forward_ps_per_point = 350'000;  // picoseconds, so that totals stay exact integers
  std::int64_t backward_ps_per_point = 650'000;
  std::int64_t fixed_ns_per_attempt = 5'000'000;
  std::int64_t host_copy_ps_per_point = 20'000;  // per retry: fragment back to the host
  std::int64_t cache_flush_ns = 2'000'000;       // per retry: torch.cuda.empty_cache()
  // A shape mismatch fails this far into the forward pass (per mille); a NaN loss after the full forward.
  std::int64_t shape_bug_forward_permille = 100;
};

struct Fault {
  BugKind kind = BugKind::None;
  std::int64_t scene = -1;  // global scene id; the bug fires on every attempt containing any of its points
};

struct SimConfig {
  Policy policy = preset_original();
  SceneSource scenes;
  std::int64_t batch = 4;  // scenes per batch
  std::int64_t epochs = 1;
  // Stop after this many batches (a trainer's --steps); 0 runs every batch of every epoch.
  std::int64_t max_batches = 0;
  std::uint64_t seed = 1;
  MemoryModel memory;
  TimeModel time;
  Fault fault;
};

SimConfig default_config();

// Throws oomscope::Error (InvalidArgument) naming the first bad field.
void validate(const SimConfig& config);

const char* to_string(CatchMode v);    // "oom-only" | "everything" | "runtime-error"
const char* to_string(FloorAction v);  // "drop" | "keep" | "raise"
const char* to_string(NormMode v);     // "batchnorm" | "frozen" | "groupnorm"
const char* to_string(GradMode v);     // "last-fragment" | "accumulate"
const char* to_string(SplitPoint v);   // "midpoint" | "median"
const char* to_string(AxisRule v);     // "alternate-xy" | "longest"
const char* to_string(BugKind v);      // "none" | "shape" | "nan"
const char* to_string(SizeDist v);     // "uniform" | "heavy-tailed" | "file"

std::optional<CatchMode> parse_catch_mode(std::string_view s);
std::optional<GradMode> parse_grad_mode(std::string_view s);
std::optional<SplitPoint> parse_split_point(std::string_view s);
std::optional<AxisRule> parse_axis_rule(std::string_view s);
std::optional<BugKind> parse_bug_kind(std::string_view s);  // also accepts "shape-mismatch", "nan-loss"
std::optional<SizeDist> parse_size_dist(std::string_view s);

// Byte sizes (budget, bytes per point, ...) are parsed by oomscope::parse_byte_size (core/util/bytes.h).

}  // namespace oomscope::sim
