// The documents of info, report and diff (command_documents.h).

#include "app/cli/command_documents.h"

#include <CLI/App.hpp>
#include <charconv>
#include <filesystem>
#include <sstream>

#include "app/cli/command.h"
#include "app/cli/info_format.h"
#include "app/cli/kineto_rank_documents.h"
#include "app/cli/log_entries.h"
#include "app/cli/log_json.h"
#include "app/cli/profile_diff_document.h"
#include "app/cli/rank_job_documents.h"
#include "app/cli/recording_diff_document.h"
#include "app/cli/recording_info.h"
#include "core/analysis/report/capture_runs.h"
#include "core/analysis/report/report_json.h"
#include "core/analysis/report/report_text.h"
#include "core/capture/reader.h"
#include "core/live/client/recording_ranks.h"
#include "core/live/client/replay.h"
#include "core/log/log_text.h"
#include "core/snapshot/file_kind.h"
#include "core/snapshot/snapshot_diff.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/files_under.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

namespace fs = std::filesystem;

namespace {

// One report per input; a file that cannot be read throws and the caller decides.
analysis::HostReport report_one(const std::string& f, const analysis::ReportOptions& options,
                                ProgressSink& progress, const std::stop_token& stop) {
  if (f.ends_with(".hlo_proto.pb")) {
    const capture::Module module = capture::read_hlo_proto_file(f);
    std::error_code ec;
    const auto size = fs::file_size(f, ec);
    return analysis::build_plan_report(module, f, ec ? 0 : size, options);
  }
  auto capture = capture::read_capture(f, progress, stop);
  return analysis::build_host_report(*capture, options, stop);
}

std::shared_ptr<const snapshot::Snapshot> load_snapshot(const std::string& path, ProgressSink& progress,
                                                        const std::stop_token& stop) {
  const snapshot::FileKindInfo kind = snapshot::detect_file_kind(path);
  if (kind.kind != snapshot::FileKind::TorchSnapshot) {
    if (kind.kind == snapshot::FileKind::Unknown) snapshot::throw_unknown_kind(path, kind);
    throw Error(ErrorKind::NotACapture, path,
                "diff compares PyTorch memory snapshots (.pickle); this looks like " + kind.looks_like);
  }
  return snapshot::read_snapshot(path, progress, stop);
}

constexpr const char* kInfoCategoriesOnly =
    "--categories applies to info on the ranks of one job (a folder of per-rank PyTorch snapshots), whose "
    "categories it compares";

}  // namespace

Rendered info_rendered(const capture::Capture& capture) {
  // Names in a capture are bytes: invalid UTF-8 becomes U+FFFD when the JSON is written; in text, control
  // characters and invalid bytes are shown as escapes so that a crafted name cannot drive the terminal.
  return Rendered{terminal_safe(info_text(capture)), info_json(capture)};
}

Rendered info_document(const std::string& path, ProgressSink& progress, const std::stop_token& stop,
                       const snapshot::CategoryRules* rules) {
  std::error_code ec;
  if (fs::is_directory(path,
                       ec)) {  // as `report DIR`: every capture under it, a summary each (JSON: an array)
    Rendered all{{}, nlohmann::ordered_json::array(), {}};
    const std::vector<std::string> files = expand_capture_inputs({path});
    // A folder of snapshots: the ranks of one job when they are (else one summary each, below).
    if (std::optional<ReportDocument> job = rank_job_document(
            files, 10, std::nullopt, false, progress, stop, [](const Error&) {}, rules))
      return std::move(job->out);
    if (rules) throw UsageError{std::string(kInfoCategoriesOnly) + "; " + path + " is not one"};
    if (std::optional<ReportDocument> job =  // a folder of per-rank Kineto traces (kineto_rank_documents.h)
        kineto_rank_document(files, std::nullopt, progress, stop, [](const Error&) {}))
      return std::move(job->out);
    if (!files.empty() && snapshot::detect_file_kind(files.front()).kind != snapshot::FileKind::XSpace) {
      for (std::size_t i = 0; i < files.size(); ++i) {
        std::optional<Rendered> one = info_other_format(files[i], progress, stop);
        if (!one) one = info_rendered(*capture::read_capture(files[i], progress, stop));
        all.text += (i ? "\n" : "") + one->text;
        all.json.push_back(std::move(one->json));
      }
      return all;
    }
    // Every capture in turn, then whether they were taken together (hosts of one run) or apart.
    std::vector<analysis::CaptureIdentity> identities;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const std::shared_ptr<const capture::Capture> cap = capture::read_capture(files[i], progress, stop);
      Rendered one = info_rendered(*cap);
      all.text += (i ? "\n" : "") + one.text;
      all.json.push_back(std::move(one.json));
      std::vector<std::string> modules;
      for (const capture::Module& m : cap->modules()) modules.push_back(m.name);
      identities.push_back({files[i], cap->hostnames(), cap->profile_start_time_ns(), std::move(modules)});
    }
    if (const analysis::CaptureRuns runs = analysis::judge_capture_runs(identities); !runs.sentence.empty())
      all.text += "\n" + terminal_safe("runs: " + runs.sentence) + "\n";
    return all;
  }
  if (rules) throw UsageError{std::string(kInfoCategoriesOnly) + "; " + path + " is one file"};
  if (live::looks_like_recording(path)) return recording_info_document(path, stop);
  if (std::optional<Rendered> other = info_other_format(path, progress, stop)) return std::move(*other);
  return info_rendered(*capture::read_capture(path, progress, stop));
}

ReportDocument report_document(const std::vector<std::string>& inputs, const analysis::ReportOptions& options,
                               ProgressSink& progress, const std::stop_token& stop,
                               const std::function<void(const Error&)>& on_failure,
                               const snapshot::CategoryRules* rules) {
  // A live recording: its ranks compared as one job (core/live/client/recording_ranks.h).
  if (inputs.size() == 1 && live::looks_like_recording(inputs[0])) {
    if (rules)
      throw UsageError{"--categories applies to PyTorch allocator snapshots (.pickle); none was given"};
    if (options.capacity)
      throw UsageError{
          "--capacity does not apply to a live recording: each rank's capacity is its hello's "
          "total_bytes (or recommended_max)"};
    if (options.module || options.plan_range)
      throw UsageError{"--module and --at apply to XLA captures (.xplane.pb), not to a live recording"};
    const live::RecordingComparison c = live::compare_recording_ranks(inputs[0], stop);
    std::ostringstream text;
    live::write_recording_comparison_text(text, c);
    ReportDocument doc;
    doc.out =
        Rendered{terminal_safe(text.str()), nlohmann::ordered_json(live::recording_comparison_json(c)), {}};
    doc.reported = true;
    return doc;
  }
  if (inputs.size() > 1)
    for (const std::string& f : inputs)
      if (live::looks_like_recording(f))
        throw UsageError{f +
                         " is a live recording: report one recording alone (its ranks are compared), "
                         "without other files"};
  // The per-rank snapshots of one job are compared (rank_job_documents.h); anything else as before.
  if (std::optional<ReportDocument> job =
          rank_job_document(inputs, options.top, options.capacity, true, progress, stop, on_failure, rules))
    return std::move(*job);
  if (std::optional<ReportDocument> job =
          kineto_rank_document(inputs, options.capacity, progress, stop, on_failure)) {
    if (rules)  // a Kineto [memory] event carries no stack, annotation or metadata for a rule to read
      throw UsageError{"--categories applies to PyTorch allocator snapshots (.pickle); none was given"};
    return std::move(*job);
  }
  ReportDocument doc;
  std::vector<std::string> files = inputs;
  // Logs beside captures are reported after them (one entry each); logs alone go with the other formats.
  const std::vector<std::string> log_paths = take_logs_beside_captures(files);
  if (std::optional<Rendered> other = report_other_formats(files, options.top, progress, stop, rules)) {
    doc.out = std::move(*other);  // snapshots, traces, logs, ... (by content)
    doc.reported = true;
    if (!doc.out.complaint.empty()) doc.exit_code = 1;
    return doc;
  }
  std::vector<LogEntry> logs;
  for (const std::string& p : log_paths) logs.push_back(load_log_entry(p));
  std::vector<analysis::HostReport> reports;
  std::vector<std::pair<std::string, std::string>> failed;  // file, message
  // The same file given twice (or through a link) is read once, and its report says so.
  const std::vector<std::size_t> first = first_names(files);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (first[i] != i) continue;
    const std::string& f = files[i];
    try {
      reports.push_back(report_one(f, options, progress, stop));
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      if (files.size() == 1) throw;
      failed.emplace_back(f, e.message());
      doc.failures.push_back(e.what());
      on_failure(e);
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    for (analysis::HostReport& report : reports)
      if (first[i] != i && report.path == files[first[i]])
        report.problems.push_back("the same file was given again as " + files[i] + "; it is reported once");
  if (reports.empty()) {
    doc.exit_code = 1;  // every file failed; each was passed to on_failure
    return doc;
  }
  analysis::add_multi_host_limits(reports);
  doc.reported = true;
  doc.exit_code = failed.empty() ? 0 : 5;
  nlohmann::json j = analysis::report_to_json(reports, options);
  j["failed"] = nlohmann::json::array();
  for (const auto& [file, message] : failed) j["failed"].push_back({{"file", file}, {"error", message}});
  if (!logs.empty()) {
    j["logs"] = nlohmann::json::array();
    for (const LogEntry& e : logs) j["logs"].push_back(log_json(e.file, e.diagnosis));
  }
  doc.out.json = nlohmann::ordered_json(j);
  std::ostringstream text;
  analysis::write_report_text(text, reports, options.top);
  for (const auto& [file, message] : failed) text << "\n== " << file << "\nnot reported: " << message << "\n";
  for (const LogEntry& e : logs) {
    text << "\n";
    log::write_log_text(text, e.file, e.diagnosis);
  }
  doc.out.text = terminal_safe(text.str());
  return doc;
}

Rendered diff_document(const std::string& a, const std::string& b, std::size_t top, ProgressSink& progress,
                       const std::stop_token& stop, const snapshot::CategoryRules* rules) {
  if (std::optional<Rendered> runs = recording_diff_document(a, b, rules != nullptr, stop))  // recordings
    return std::move(*runs);
  if (std::optional<Rendered> other =
          profile_diff_document(a, b, top, progress, stop, rules))  // traces, pprof
    return std::move(*other);
  const auto sa = load_snapshot(a, progress, stop);
  const auto sb = load_snapshot(b, progress, stop);
  const auto ra = snapshot::analyse_snapshot(*sa, top, rules);
  const auto rb = snapshot::analyse_snapshot(*sb, top, rules);
  const snapshot::SnapshotDiff d = snapshot::diff_snapshots(*sa, ra, *sb, rb, top, rules);
  std::ostringstream text;
  snapshot::write_diff_text(text, d);
  return Rendered{text.str(), nlohmann::ordered_json(snapshot::diff_json(d))};
}

std::int64_t parse_position(const std::string& name, const std::string& text) {
  std::int64_t at = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), at);
  if (ec != std::errc() || end != text.data() + text.size() || at < 0)
    throw CLI::ValidationError(name, "'" + text + "' is not a program position (0 or more)");
  return at;
}

}  // namespace oomscope::cli
