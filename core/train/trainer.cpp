#include "core/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "core/sim/json_fields.h"
#include "core/sim/sizes_file.h"
#include "core/sim/trace_json.h"
#include "core/sim/trace_writer.h"
#include "core/train/budget_allocator.h"
#include "core/train/calibrate.h"
#include "core/train/fragment.h"
#include "core/util/atomic_file.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::train {

namespace {

constexpr std::int64_t kNoBudget = std::int64_t{1} << 60;  // what the header says for "no budget"
constexpr const char* kStateMagic = "OOMSCOPE-TRAIN-STATE 1\n";

struct Checkpoint {
  std::int64_t next_batch = 0;
  LoopState loop;
  std::int64_t trace_bytes = -1;  // the trace's size when the checkpoint was written; -1: no trace
  nlohmann::json signature;
  std::string torch_state;
};

// What must match for --resume: everything that decides the training, not the steps (a resumed run may go
// further), the calibrated figures or the free-form notes.
nlohmann::json signature_of(const nlohmann::json& config) {
  nlohmann::json s = config;
  for (const char* k : {"max_batches", "time", "model", "trainer"}) s.erase(k);
  s["memory"] = {{"budget", config.at("memory").at("budget")}};
  return s;
}

std::string encode(const Checkpoint& c) {
  nlohmann::json j;
  j["next_batch"] = c.next_batch;
  j["next_event"] = c.loop.next_event;
  j["next_step"] = c.loop.next_step;
  j["elapsed_ns"] = c.loop.elapsed_ns;
  j["ok_cpu_ns"] = c.loop.ok_cpu_ns;
  j["failed_cpu_ns"] = c.loop.failed_cpu_ns;
  j["totals"] = sim::totals_to_json(c.loop.totals);
  j["trace_bytes"] = c.trace_bytes;
  j["signature"] = c.signature;
  j["torch_bytes"] = c.torch_state.size();
  return std::string(kStateMagic) + j.dump() + "\n" + c.torch_state;
}

Checkpoint decode(const std::string& path, const std::string& bytes) {
  const std::string magic = kStateMagic;
  if (bytes.compare(0, magic.size(), magic) != 0)
    throw Error(ErrorKind::Damaged, path,
                "not an oomscope-demo-trainer checkpoint (no OOMSCOPE-TRAIN-STATE header)");
  const auto eol = bytes.find('\n', magic.size());
  if (eol == std::string::npos)
    throw Error(ErrorKind::Truncated, path, "the checkpoint's state line is cut short");
  Checkpoint c;
  try {
    const auto j = nlohmann::json::parse(bytes.begin() + static_cast<std::ptrdiff_t>(magic.size()),
                                         bytes.begin() + static_cast<std::ptrdiff_t>(eol));
    c.next_batch = sim::detail::get_int(j, "next_batch");
    c.loop.next_event = sim::detail::get_int(j, "next_event");
    c.loop.next_step = sim::detail::get_int(j, "next_step");
    c.loop.elapsed_ns = sim::detail::get_int(j, "elapsed_ns");
    c.loop.ok_cpu_ns = sim::detail::get_int(j, "ok_cpu_ns");
    c.loop.failed_cpu_ns = sim::detail::get_int(j, "failed_cpu_ns");
    c.loop.totals = sim::totals_from_json(sim::detail::field(j, "totals"));
    c.trace_bytes = sim::detail::get_int(j, "trace_bytes");
    c.signature = sim::detail::field(j, "signature");
    const auto torch_bytes = static_cast<std::size_t>(sim::detail::get_int(j, "torch_bytes"));
    if (bytes.size() - eol - 1 != torch_bytes)
      throw Error(ErrorKind::Truncated, path,
                  "the model state holds " + std::to_string(bytes.size() - eol - 1) +
                      " bytes, the header says " + std::to_string(torch_bytes));
    c.torch_state = bytes.substr(eol + 1);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::Damaged, path,
                std::string("the checkpoint's state line is not valid JSON: ") + e.what());
  } catch (const sim::detail::FieldError& e) {
    throw Error(ErrorKind::Damaged, path, "the checkpoint's state line: " + e.message);
  }
  return c;
}

std::string fmt_int(std::int64_t v) { return format_bytes_exact(v); }

// A checkpoint file whole; throws oomscope::Error (NotFound / Io) naming it.
std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(ErrorKind::NotFound, path, "no such file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::Io, path, "read failed");
  return s.str();
}

}  // namespace

std::vector<std::int64_t> trainer_scene_sizes(const TrainerOptions& o) {
  if (o.sizes_file.empty()) return sim::generate_scene_sizes(o.dist, o.scenes, o.seed);
  auto sizes = sim::read_scene_sizes(o.sizes_file);
  if (o.scenes > 0) {
    if (o.scenes > static_cast<std::int64_t>(sizes.size()))
      throw Error(ErrorKind::InvalidArgument, o.sizes_file,
                  "holds " + std::to_string(sizes.size()) + " scene sizes, " + std::to_string(o.scenes) +
                      " scenes were asked for");
    sizes.resize(static_cast<std::size_t>(o.scenes));
  }
  return sizes;
}

nlohmann::json trainer_config_json(const TrainerOptions& o, const std::vector<std::int64_t>& sizes,
                                   const sim::CalibratedModel& figures,
                                   const std::string& model_description) {
  sim::SimConfig sc;
  sc.policy = o.policy;
  sc.scenes.dist = sim::SizeDist::File;  // always the sizes themselves, drawn or read
  sc.scenes.count = static_cast<std::int64_t>(sizes.size());
  sc.scenes.sizes_file = o.sizes_file;
  sc.scenes.sizes = sizes;
  sc.batch = o.batch;
  sc.epochs = o.epochs;
  sc.max_batches = o.steps;
  sc.seed = o.seed;
  sim::apply_model(figures, sc);
  sc.memory.budget = o.budget > 0 ? o.budget : kNoBudget;
  sc.memory.fragmentation_penalty = 0;
  sc.fault.kind = o.bug;
  sc.fault.scene = o.bug == sim::BugKind::None ? -1 : o.bug_scene;
  nlohmann::json c = sim::config_to_json(sc);
  c["model"] = sim::model_to_json(figures);
  c["trainer"] = {{"device", "cpu"},
                  {"torch_version", torch_version()},
                  {"model", model_description},
                  {"normalisation", "none (the policy's norm toggle has no layer to act on)"},
                  {"steps", o.steps},
                  {"threads", o.model.threads},
                  {"budget", o.budget > 0 ? "the budgeted CPU allocator's limit" : "none (1 EiB written)"},
                  {"scene_source", o.sizes_file.empty() ? sim::to_string(o.dist) : "file"}};
  return c;
}

TrainerResult run_trainer(const TrainerOptions& o, TrainObserver* observer, std::ostream& log,
                          const RestartFn& restart) {
  TrainerResult result;
  const auto started = std::chrono::steady_clock::now();
  try {
    const auto sizes = trainer_scene_sizes(o);
    const auto count = static_cast<std::int64_t>(sizes.size());
    if (count == 0) throw Error(ErrorKind::InvalidArgument, o.sizes_file, "no scenes to train on");
    if (o.bug != sim::BugKind::None && (o.bug_scene < 0 || o.bug_scene >= count))
      throw Error(ErrorKind::InvalidArgument, "",
                  "--bug-scene must be a scene id below " + std::to_string(count));
    const std::int64_t per_epoch = (count + o.batch - 1) / o.batch;
    std::int64_t total = per_epoch * o.epochs;
    if (o.steps > 0) total = std::min(total, o.steps);

    ModelConfig mc = o.model;
    mc.init_seed = o.seed;
    mc.scene_seed = o.seed;
    // The figures the simulator predicts this run with: the calibrated file, or measured here (memory is
    // exactly linear in the points for this model, so two small attempts give it).
    sim::CalibratedModel figures;
    if (!o.model_file.empty()) {
      figures = sim::read_model_file(o.model_file);
    } else {
      std::ostringstream quiet;
      const Calibration c = calibrate(mc, {500, 1500}, 1, quiet);
      figures.fixed_bytes = c.fixed_bytes;
      figures.bytes_per_point = c.bytes_per_point;
      figures.time_fixed_s = c.time_fixed_s;
      figures.time_per_point_s = std::clamp(c.time_per_point_s, 0.0, 0.001);
      figures.extra = {{"measured", "at start-up, 500 and 1,500 points"}};
    }
    install_budget_allocator();
    set_budget(o.budget);
    mc.fault = o.bug;
    mc.fault_scene = o.bug_scene;
    mc.keep_step_inputs = o.leak_per_step > 0;
    auto model = TorchModel::create(mc);
    const nlohmann::json config = trainer_config_json(o, sizes, figures, model->describe());

    Checkpoint ck;
    if (o.resume) {
      ck = decode(o.checkpoint_path, read_file(o.checkpoint_path));
      if (ck.signature != signature_of(config))
        throw Error(ErrorKind::InvalidArgument, o.checkpoint_path,
                    "was written by a run with different options (scenes, policy, budget, seed or model); "
                    "resume with the same options");
      model->load_state(ck.torch_state);
      log << "resumed from " << o.checkpoint_path << " at batch " << ck.next_batch << " of " << total << "\n";
    }
    log << "model: " << model->describe() << "; LibTorch " << torch_version() << ", cpu, " << o.model.threads
        << " thread(s)\n"
        << "scenes: " << count << " (" << (o.sizes_file.empty() ? sim::to_string(o.dist) : o.sizes_file)
        << "), batch " << o.batch << ", " << total << " step(s); budget "
        << (o.budget > 0 ? format_bytes(o.budget) + " (" + fmt_int(o.budget) + " bytes)"
                         : std::string("none"))
        << "; policy catch " << sim::to_string(o.policy.catch_mode) << ", grad "
        << sim::to_string(o.policy.grad) << ", split " << sim::to_string(o.policy.split) << ", axis "
        << sim::to_string(o.policy.axis) << ", floor " << o.policy.floor << " ("
        << sim::to_string(o.policy.on_floor) << ")\n"
        << "memory model: " << format_bytes_exact(figures.fixed_bytes) << " bytes + "
        << figures.bytes_per_point << " bytes/point"
        << (o.model_file.empty() ? " (measured)" : " (" + o.model_file + ")") << "\n";

    // The trace: a fresh one with its header, or on resume the old one cut back to the checkpoint.
    std::ofstream trace_file;
    std::ostream trace_stream(nullptr);
    std::ostringstream discarded_header;
    std::unique_ptr<sim::TraceWriter> writer;
    if (!o.trace_path.empty()) {
      sim::TraceHeader h;
      h.source = "libtorch";
      h.config = config;
      h.seed = o.seed;
      if (o.resume && ck.trace_bytes >= 0 && std::filesystem::exists(o.trace_path)) {
        std::filesystem::resize_file(o.trace_path, static_cast<std::uintmax_t>(ck.trace_bytes));
        trace_file.open(o.trace_path, std::ios::binary | std::ios::app);
        trace_stream.rdbuf(discarded_header.rdbuf());
        writer = std::make_unique<sim::TraceWriter>(trace_stream, h);
      } else {
        trace_file.open(o.trace_path, std::ios::binary | std::ios::trunc);
        trace_stream.rdbuf(trace_file.rdbuf());
        writer = std::make_unique<sim::TraceWriter>(trace_stream, h);
      }
      if (!trace_file) throw Error(ErrorKind::Io, o.trace_path, "cannot open the trace for writing");
      trace_stream.rdbuf(trace_file.rdbuf());
    }

    SplitRetryLoop loop(o.policy, *model, writer.get(), observer, o.budget > 0 ? o.budget : kNoBudget,
                        ck.loop);
    log << "ready: start-up took "
        << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count()
        << " ms (scene sizes, " << (o.model_file.empty() ? "memory measurement, " : "model file, ")
        << "allocator, model" << (o.resume ? ", checkpoint" : "") << (writer ? ", trace" : "") << ")\n";
    auto save = [&](std::int64_t next_batch) {
      Checkpoint c;
      c.next_batch = next_batch;
      c.loop = loop.state();
      trace_stream.flush();
      c.trace_bytes =
          o.trace_path.empty() ? -1 : static_cast<std::int64_t>(std::filesystem::file_size(o.trace_path));
      c.signature = signature_of(config);
      c.torch_state = model->save_state();
      write_file_atomically(o.checkpoint_path, encode(c));
      if (observer) observer->checkpoint_written(o.checkpoint_path, next_batch);
      log << "checkpoint: " << o.checkpoint_path << " (next batch " << next_batch << ")\n";
    };

    std::int64_t order_epoch = -1;
    std::vector<std::int64_t> order;
    for (std::int64_t b = ck.next_batch; b < total; ++b) {
      const std::int64_t epoch = b / per_epoch;
      if (epoch != order_epoch) order = sim::epoch_order(count, o.seed, epoch), order_epoch = epoch;
      const std::int64_t first = (b % per_epoch) * o.batch;
      const std::int64_t last = std::min(first + o.batch, count);
      const std::vector<std::int64_t> scenes(order.begin() + first, order.begin() + last);
      try {
        loop.run_batch(make_batch(scenes, sizes, o.seed), b, epoch);
      } catch (const std::exception& e) {
        result.exit_code = 4;
        result.error = e.what();
        log << "crash: " << e.what() << "\n";
        break;
      }
      if ((b + 1) % per_epoch == 0) loop.epoch_done();
      try {  // memory kept past the step: past the budget, this is the run's own out-of-memory crash
        model->hold_bytes(o.hold_per_step);
        model->keep_step_tensors(o.leak_per_step);
      } catch (const std::exception& e) {
        result.exit_code = 4;
        result.error = "out of memory keeping memory past step " + std::to_string(b + 1) + ": " + e.what();
        log << "crash: " << result.error << "\n";
        break;
      }
      const bool more = b + 1 < total;
      // Every N steps, and at the end of a run cut short by --steps (so that --resume can go further).
      if (!o.checkpoint_path.empty() && ((o.checkpoint_every > 0 && (b + 1) % o.checkpoint_every == 0) ||
                                         (!more && b + 1 < per_epoch * o.epochs)))
        save(b + 1);
      const std::int64_t live = allocator_stats().live_bytes;
      if (o.restart_above > 0 && live > o.restart_above && more) {
        if (o.checkpoint_path.empty())
          throw Error(ErrorKind::InvalidArgument, "", "--restart-above needs --checkpoint FILE");
        save(b + 1);
        log << "restart: live bytes " << fmt_int(live) << " > " << fmt_int(o.restart_above)
            << "; re-executing with --resume\n";
        log.flush();
        if (observer) observer->restarting(live, o.restart_above);
        restart();
        throw Error(ErrorKind::Io, "", "execv failed; the checkpoint is written, run again with --resume");
      }
      if (o.restart_check && more)
        if (const std::string why = o.restart_check(); !why.empty()) {
          if (o.checkpoint_path.empty())
            throw Error(ErrorKind::InvalidArgument, "", "a restart before the OOM needs --checkpoint FILE");
          save(b + 1);
          log << "restart before the forecast OOM: " << why << "; re-executing with --resume\n";
          log.flush();
          if (observer) observer->restarting_before_oom(why);
          restart();
          throw Error(ErrorKind::Io, "", "execv failed; the checkpoint is written, run again with --resume");
        }
    }
    const LoopState end = loop.state();
    result.totals = end.totals;
    result.totals.time_ns = end.elapsed_ns;
    if (writer) {
      writer->write_totals(result.totals, nullptr);
      trace_stream.flush();
    }
    if (!o.weights_out.empty()) {
      const auto w = model->flat_weights();
      write_file_atomically(o.weights_out,
                            std::string(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float)));
    }
    const auto& t = result.totals;
    log << "done: " << t.optimizer_steps << " step(s), " << t.attempts << " attempt(s) (" << t.oom_attempts
        << " oom, " << t.bug_attempts << " bug, " << t.crashes << " crash), " << t.dropped_fragments
        << " fragment(s) dropped (" << fmt_int(t.points_dropped) << " points); " << fmt_int(t.points_applied)
        << " of " << fmt_int(t.points) << " points reached the optimizer; largest ok attempt "
        << format_bytes(t.peak_ok_bytes) << "\n";
    char cpu[160];
    std::snprintf(
        cpu, sizeof cpu,
        "CPU time in attempts: %.2f s ok, %.2f s failed (%.1f %% spent on failed attempts); wall %.2f s\n",
        double(end.ok_cpu_ns) / 1e9, double(end.failed_cpu_ns) / 1e9,
        end.ok_cpu_ns + end.failed_cpu_ns > 0
            ? 100.0 * double(end.failed_cpu_ns) / double(end.ok_cpu_ns + end.failed_cpu_ns)
            : 0.0,
        double(end.elapsed_ns) / 1e9);
    log << cpu;
  } catch (const Error& e) {
    result.exit_code = 1;
    result.error = e.what();
    log << "error: " << e.what() << "\n";
  }
  return result;
}

}  // namespace oomscope::train
