#include "ui/snapshot/rank_job_result.h"

#include <algorithm>

#include "core/snapshot/file_kind.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/error.h"

namespace oomscope::ui {

namespace {

void compare(RankJobResult& r) {
  if (!r.traces.empty() || r.kineto) {
    r.kineto = snapshot::compare_kineto_ranks(r.traces, r.capacity);  // throws on two claims of a rank
    r.is_job = r.kineto->is_job;
    r.not_a_job = r.kineto->not_a_job;
    return;
  }
  r.is_job = r.grouping.is_job;
  r.not_a_job = r.grouping.not_a_job;
  if (r.is_job) r.comparison = snapshot::compare_ranks(r.snaps, r.grouping, r.capacity, 10, r.rules.get());
}

}  // namespace

bool isTorchSnapshotFile(const QString& path) {
  return snapshot::detect_file_kind(path.toStdString()).kind == snapshot::FileKind::TorchSnapshot;
}

bool isChromeTraceFile(const QString& path) {
  return snapshot::detect_file_kind(path.toStdString()).kind == snapshot::FileKind::ChromeTrace;
}

std::shared_ptr<const RankJobResult> loadRankJob(const QStringList& paths, ProgressSink& progress,
                                                 const std::stop_token& stop,
                                                 std::optional<std::int64_t> capacity) {
  auto result = std::make_shared<RankJobResult>();
  result->paths = paths;
  result->capacity = capacity;
  const bool traces = !paths.isEmpty() && std::all_of(paths.begin(), paths.end(), isChromeTraceFile);
  for (qsizetype i = 0; i < paths.size(); ++i) {
    const std::string path = paths[i].toStdString();
    progress.report(double(i) / double(paths.size()), traces ? "reading traces" : "reading snapshots");
    try {
      if (traces) {
        auto t = snapshot::read_kineto_trace(path, progress, stop);
        snapshot::require_memory_events(*t);
        result->traces.push_back(std::move(t));
        continue;
      }
      const snapshot::FileKindInfo kind = snapshot::detect_file_kind(path);
      if (kind.kind != snapshot::FileKind::TorchSnapshot && kind.kind != snapshot::FileKind::XSpace)
        throw Error(ErrorKind::NotACapture, path,
                    "not a PyTorch snapshot, though named like a rank's: it looks like " + kind.looks_like);
      result->snaps.push_back(snapshot::read_snapshot(path, progress, stop));
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      result->failed.push_back(e.what());
    }
  }
  if (traces) result->kineto.emplace();
  if (!traces) result->grouping = snapshot::group_ranks(result->snaps);  // throws on two claims of a rank
  compare(*result);
  progress.report(1.0, "compared");
  return result;
}

std::shared_ptr<const RankJobResult> recomputeRankJob(const RankJobResult& r,
                                                      std::optional<std::int64_t> capacity,
                                                      std::shared_ptr<const snapshot::CategoryRules> rules) {
  auto result = std::make_shared<RankJobResult>(r);
  result->capacity = capacity;
  result->rules = std::move(rules);
  compare(*result);
  return result;
}

}  // namespace oomscope::ui
