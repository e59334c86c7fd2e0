// info / report for snapshots, Kineto traces, raw memory timelines and pprof profiles (other_formats.h).

#include "app/cli/other_formats.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/command.h"
#include "app/cli/log_entries.h"
#include "app/cli/log_json.h"
#include "core/allocator/replayed_savings.h"
#include "core/capture/input_checks.h"
#include "core/log/log_text.h"
#include "core/snapshot/file_kind.h"
#include "core/snapshot/snapshot_json.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/snapshot/snapshot_text.h"
#include "core/snapshot/timeline_reports.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

namespace {

using namespace oomscope::snapshot;

// One parsed non-XSpace file, able to print itself.
struct OtherFile {
  FileKindInfo kind;
  std::shared_ptr<const Snapshot> snap;
  std::shared_ptr<const KinetoTrace> kineto;
  std::shared_ptr<const HtaTimeline> hta;
  std::shared_ptr<const PprofProfile> pprof;
  std::shared_ptr<const LogEntry> log;
};

OtherFile load(const std::string& path, const FileKindInfo& kind, ProgressSink& progress,
               const std::stop_token& stop) {
  OtherFile f;
  f.kind = kind;
  switch (kind.kind) {
    case FileKind::TorchSnapshot:
      f.snap = read_snapshot(path, progress, stop);
      break;
    case FileKind::ChromeTrace:
      f.kineto = read_kineto_trace(path, progress, stop);
      require_memory_events(*f.kineto);
      break;
    case FileKind::HtaRawTimeline:
      f.hta = read_hta_raw(path);
      break;
    case FileKind::Pprof:
      f.pprof = read_pprof(path);
      break;
    case FileKind::Log:
      f.log = std::make_shared<const LogEntry>(load_log_entry(path));
      break;
    case FileKind::Unknown:
      throw_unknown_kind(path, kind);
    case FileKind::XSpace:
      break;
  }
  return f;
}

void write_text(std::ostream& o, const OtherFile& f, std::size_t top, bool full,
                const CategoryRules* rules = nullptr) {
  if (f.snap) {
    SnapshotReport r = analyse_snapshot(*f.snap, top, rules);
    if (full) allocator::apply_replayed_savings(*f.snap, r);  // the replay's figure, not a rule of thumb
    write_snapshot_text(o, *f.snap, r, full ? top : 5);
  } else if (f.kineto) {
    write_kineto_text(o, *f.kineto);
  } else if (f.hta) {
    write_hta_text(o, *f.hta);
  } else if (f.pprof) {
    write_pprof_text(o, *f.pprof, full ? top : 10);
  } else if (f.log) {
    if (full)
      log::write_log_text(o, f.log->file, f.log->diagnosis);
    else
      log::write_log_info(o, f.log->file);
  }
}

nlohmann::json to_json(const OtherFile& f, std::size_t top, bool full, const CategoryRules* rules = nullptr) {
  if (f.snap) {
    SnapshotReport r = analyse_snapshot(*f.snap, top, rules);
    if (full) {
      allocator::apply_replayed_savings(*f.snap, r);
      return snapshot_report_json(*f.snap, r);
    }
    return {{"file", r.path},
            {"kind", "torch-snapshot"},
            {"file_bytes", r.file_size},
            {"snapshot", snapshot_summary_json(*f.snap, r)}};
  }
  if (f.kineto) return kineto_json(*f.kineto);
  if (f.hta) return hta_json(*f.hta);
  if (f.pprof) return pprof_json(*f.pprof, top);
  if (f.log) return log_json(f.log->file, f.log->diagnosis);
  return nullptr;
}

// The capture reader's file: an XSpace, or a file of unknown kind that starts like one (a damaged or cut
// capture) or with zero bytes; the reader then says precisely what is wrong and where.
FileKindInfo detect(const std::string& path) {
  if (path == "-") return FileKindInfo{FileKind::Log, false, "standard input"};  // a log piped in
  FileKindInfo kind = detect_file_kind(path);
  if (kind.kind != FileKind::Unknown) return kind;
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (!head.empty() && (head[0] == '\0' || !capture::xspace_start_problem(head)))
    kind.kind = FileKind::XSpace;
  return kind;
}

// What the command says on stderr (and exits 1 for) when a log's messages are none of them an out-of-memory
// error (BFC warnings only); "" otherwise.
std::string oom_complaint(const OtherFile& f) { return f.log ? no_oom_complaint(*f.log) : std::string(); }

}  // namespace

std::optional<Rendered> info_other_format(const std::string& path, ProgressSink& progress,
                                          const std::stop_token& stop) {
  const FileKindInfo kind = detect(path);
  if (kind.kind == FileKind::XSpace) return std::nullopt;
  const OtherFile f = load(path, kind, progress, stop);
  // As for captures: invalid UTF-8 becomes U+FFFD in JSON; text shows control characters as escapes.
  std::ostringstream text;
  write_text(text, f, 10, false);
  return Rendered{terminal_safe(text.str()), nlohmann::ordered_json(to_json(f, 10, false)), oom_complaint(f)};
}

std::optional<Rendered> report_other_formats(const std::vector<std::string>& files, std::size_t top,
                                             ProgressSink& progress, const std::stop_token& stop,
                                             const snapshot::CategoryRules* rules) {
  std::vector<FileKindInfo> kinds;
  std::size_t xspace = 0;
  for (const std::string& f : files) {
    kinds.push_back(detect(f));
    xspace += kinds.back().kind == FileKind::XSpace;
  }
  if (rules && std::none_of(kinds.begin(), kinds.end(),
                            [](const FileKindInfo& k) { return k.kind == FileKind::TorchSnapshot; }))
    throw UsageError{"--categories applies to PyTorch allocator snapshots (.pickle); none was given"};
  if (xspace == files.size()) return std::nullopt;
  if (xspace > 0)
    throw UsageError{"report XLA captures (.xplane.pb) and PyTorch/JAX profile files in separate runs"};
  std::vector<OtherFile> loaded;
  for (std::size_t i = 0; i < files.size(); ++i) loaded.push_back(load(files[i], kinds[i], progress, stop));
  nlohmann::json doc = nlohmann::json::array();
  for (const OtherFile& f : loaded) doc.push_back(to_json(f, top, true, rules));
  std::ostringstream text;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    if (i) text << "\n";
    write_text(text, loaded[i], top, true, rules);
  }
  Rendered out{terminal_safe(text.str()), nlohmann::ordered_json(doc.size() == 1 ? doc[0] : doc), {}};
  for (const OtherFile& f : loaded)
    if (out.complaint.empty()) out.complaint = oom_complaint(f);
  return out;
}

}  // namespace oomscope::cli
