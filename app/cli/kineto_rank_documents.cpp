// The documents of `report` and `info` on a job's per-rank Kineto traces (kineto_rank_documents.h).

#include "app/cli/kineto_rank_documents.h"

#include <sstream>

#include "core/snapshot/file_kind.h"
#include "core/snapshot/kineto_ranks.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

using namespace oomscope::snapshot;

std::optional<ReportDocument> kineto_rank_document(const std::vector<std::string>& files,
                                                   std::optional<std::int64_t> capacity,
                                                   ProgressSink& progress, const std::stop_token& stop,
                                                   const std::function<void(const Error&)>& on_failure) {
  if (files.size() < 2) return std::nullopt;
  for (const std::string& f : files)
    if (f == "-" || detect_file_kind(f).kind != FileKind::ChromeTrace) return std::nullopt;
  std::vector<std::shared_ptr<const KinetoTrace>> traces;
  std::vector<Error> failed;
  for (const std::string& f : files) {
    try {
      auto t = read_kineto_trace(f, progress, stop);
      require_memory_events(*t);
      traces.push_back(std::move(t));
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      failed.push_back(e);
    }
  }
  KinetoRankJob job = compare_kineto_ranks(traces, capacity);
  if (!job.is_job) return std::nullopt;
  for (const Error& e : failed) on_failure(e);
  if (!failed.empty())
    job.verdict.sentences.push_back(std::to_string(failed.size()) + " trace" +
                                    (failed.size() == 1 ? "" : "s") +
                                    " could not be read (below): the verdict covers the ranks read");
  ReportDocument doc;
  doc.reported = true;
  doc.exit_code = failed.empty() ? 0 : 5;
  nlohmann::json j = kineto_ranks_json(job);
  j["failed"] = nlohmann::json::array();
  std::ostringstream text;
  write_kineto_ranks_text(text, job);
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
