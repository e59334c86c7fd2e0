#include "ui/snapshot/run_overlay_result.h"

#include "core/snapshot/kineto_overlay.h"
#include "core/util/error.h"

namespace oomscope::ui {

std::shared_ptr<const RunOverlayResult> buildRunOverlay(std::shared_ptr<const SnapshotDocument> a,
                                                        const QString& pathB, ProgressSink& progress,
                                                        const std::stop_token& stop) {
  if (!a || ((!a->snap || !a->report) && !a->kineto && !a->pprof))
    throw Error(ErrorKind::InvalidArgument, a ? a->path.toStdString() : std::string(),
                "only a PyTorch allocator snapshot, a Kineto trace or a JAX memory profile can be laid over "
                "another of its kind");
  auto b = loadSnapshotDocument(pathB, progress, stop, a->rules);  // both runs by the same category rules
  if (a->kineto || a->pprof) {
    const bool trace = a->kineto != nullptr;
    if (trace ? !b->kineto : !b->pprof)
      throw Error(ErrorKind::NotACapture, pathB.toStdString(),
                  std::string("is a ") + snapshot::to_string(b->kind) + ", not " +
                      (trace ? "a Kineto trace" : "a JAX memory profile") +
                      " as A is; two files of one kind "
                      "can be laid over each other");
    if (stop.stop_requested()) throw Cancelled(pathB.toStdString());
    auto r = std::make_shared<RunOverlayResult>();
    if (trace) {
      r->profile = snapshot::diff_kineto(*a->kineto, *b->kineto);
      r->overlay = snapshot::overlay_kineto(*a->kineto, *b->kineto, 2000);
    } else {
      r->profile = snapshot::diff_pprof(*a->pprof, *b->pprof, 200);
      r->overlay.a.path = a->path.toStdString();
      r->overlay.b.path = pathB.toStdString();
      r->overlay.why =
          "a JAX memory profile is one heap snapshot, taken when it was saved: there is no time "
          "axis to lay the runs on, so they are compared side by side by Python line";
    }
    r->a = std::move(a);
    r->b = std::move(b);
    return r;
  }
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
