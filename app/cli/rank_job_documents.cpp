// The documents of `report` and `info` on a job's per-rank snapshots (rank_job_documents.h).

#include "app/cli/rank_job_documents.h"

#include <sstream>

#include "core/snapshot/file_kind.h"
#include "core/snapshot/rank_comparison.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

namespace {

using namespace oomscope::snapshot;

bool named_like_a_snapshot(const std::string& f) {
  return rank_in_name(f).has_value() || f.ends_with(".pickle") || f.ends_with(".pkl") ||
         f.ends_with(".pickle.gz");
}

}  // namespace

std::optional<ReportDocument> rank_job_document(const std::vector<std::string>& files, std::size_t top,
                                                std::optional<std::int64_t> capacity, bool full,
                                                ProgressSink& progress, const std::stop_token& stop,
                                                const std::function<void(const Error&)>& on_failure,
                                                const snapshot::CategoryRules* rules) {
  if (files.size() < 2) return std::nullopt;
  std::vector<FileKindInfo> kinds;
  std::size_t snapshots = 0;
  for (const std::string& f : files) {
    if (f == "-") return std::nullopt;  // standard input is a log
    kinds.push_back(detect_file_kind(f));
    if (kinds.back().kind == FileKind::TorchSnapshot)
      ++snapshots;
    else if (!named_like_a_snapshot(f))
      return std::nullopt;  // a capture, a log or a trace given beside snapshots: reported as before
  }
  if (snapshots < 2) return std::nullopt;
  std::vector<std::shared_ptr<const Snapshot>> snaps;
  std::vector<Error> failed;
  for (std::size_t i = 0; i < files.size(); ++i) {
    try {
      const FileKind k = kinds[i].kind;
      if (k != FileKind::TorchSnapshot && k != FileKind::XSpace)  // XSpace: binary of no known kind
        throw Error(
            ErrorKind::NotACapture, files[i],
            "not a PyTorch snapshot, though named like a rank's: it looks like " + kinds[i].looks_like);
      snaps.push_back(read_snapshot(files[i], progress, stop));
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      failed.push_back(e);
    }
  }
  const RankGrouping grouping = group_ranks(snaps);
  if (!grouping.is_job) return std::nullopt;
  for (const Error& e : failed) on_failure(e);
  RankComparison c = compare_ranks(snaps, grouping, capacity, top, rules);
  if (!failed.empty())
    c.verdict.sentences.push_back(
        std::to_string(failed.size()) + " file" + (failed.size() == 1 ? "" : "s") +
        " named like a rank's snapshot could not be read (below): the verdict covers "
        "the ranks read");
  ReportDocument doc;
  doc.reported = true;
  doc.exit_code = failed.empty() ? 0 : 5;
  nlohmann::json j = rank_comparison_json(c);
  j["failed"] = nlohmann::json::array();
  std::ostringstream text;
  write_rank_comparison_text(text, c, full);
  for (const Error& e : failed) {
    j["failed"].push_back({{"file", e.file()}, {"error", e.message()}});
    doc.failures.push_back(e.what());
    text << "\n== " << e.file() << "\nnot reported: " << e.message() << "\n";
  }
  doc.out.json = nlohmann::ordered_json(j);
  doc.out.text = terminal_safe(text.str());
  return doc;
}

}  // namespace oomscope::cli
