#include "ui/snapshot/run_overlay_result.h"

#include "core/util/error.h"

namespace oomscope::ui {

std::shared_ptr<const RunOverlayResult> buildRunOverlay(std::shared_ptr<const SnapshotDocument> a,
                                                        const QString& pathB, ProgressSink& progress,
                                                        std::stop_token stop) {
  if (!a || !a->snap || !a->report)
    throw Error(ErrorKind::InvalidArgument, a ? a->path.toStdString() : std::string(),
                "only a PyTorch allocator snapshot can be laid over another");
  auto b = loadSnapshotDocument(pathB, progress, stop, a->rules);  // both runs by the same category rules
  if (!b->snap || !b->report)
    throw Error(ErrorKind::NotACapture, pathB.toStdString(),
                std::string("is a ") + snapshot::to_string(b->kind) +
                    ", not a PyTorch allocator snapshot; two snapshots can be laid over each other");
  if (stop.stop_requested()) throw Cancelled(pathB.toStdString());
  auto r = std::make_shared<RunOverlayResult>();
  r->diff = snapshot::diff_snapshots(*a->snap, *a->report, *b->snap, *b->report, 200, a->rules.get());
  r->overlay = snapshot::overlay_runs(*a->snap, *a->report, *b->snap, *b->report, 2000);
  r->a = std::move(a);
  r->b = std::move(b);
  return r;
}

}  // namespace oomscope::ui
