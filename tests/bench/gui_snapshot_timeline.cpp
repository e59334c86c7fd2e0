// bench_gui_snapshot_timeline FILE [--frames N]: the time the snapshot window's memory timeline takes to draw
// a frame, offscreen. The file (a PyTorch allocator snapshot with its trace, e.g. one made bigger by
// tests/bench/make_big_snapshot.py) is read as the window reads it; then the timeline, 1280 x 600, zooms in
// by halves for the first half of the frames and pans by 0.3 of the shown range for the rest, each step
// rendered into an image; last, the whole trace is drawn once. Prints the mean and worst zoom/pan frame and
// the whole-trace frame (wall time). A benchmark, not a test: it runs by hand (CONTRIBUTING.md,
// "Benchmarks"), never under ctest.
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <algorithm>
#include <cstdio>

#include "core/snapshot/snapshot.h"
#include "core/util/error.h"
#include "core/util/progress.h"
#include "ui/snapshot/memory_timeline_widget.h"
#include "ui/snapshot/snapshot_document.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

double renderMs(MemoryTimelineWidget& t, QImage& image) {
  QElapsedTimer timer;
  timer.start();
  t.render(&image);
  return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QStringList args = QApplication::arguments();
  QString path;
  int frames = 12;
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QStringLiteral("--frames") && i + 1 < args.size())
      frames = std::max(2, args[++i].toInt());
    else if (!args[i].startsWith(QLatin1Char('-')))
      path = args[i];
  }
  if (path.isEmpty()) {
    std::fprintf(stderr,
                 "usage: bench_gui_snapshot_timeline FILE [--frames N]\n"
                 "  FILE: an allocator snapshot with a trace, e.g. "
                 "tests/data/torch_snapshot_decomfl_windows_with_trace.pickle\n");
    return 2;
  }
  std::shared_ptr<const SnapshotDocument> doc;
  try {
    NullProgress none;
    doc = loadSnapshotDocument(path, none);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_gui_snapshot_timeline: %s\n", e.what());
    return 1;
  }
  MemoryTimelineWidget t;
  t.resize(1280, 600);
  t.setDocument(doc);
  QImage image(t.size(), QImage::Format_ARGB32);
  double worst = 0, total = 0;
  for (int i = 0; i < frames; ++i) {
    if (i < frames / 2)
      t.zoomAt((t.rangeLo() + t.rangeHi()) / 2, 0.5);
    else
      t.setRange(t.rangeLo() + (t.rangeHi() - t.rangeLo()) * 0.3,
                 t.rangeHi() + (t.rangeHi() - t.rangeLo()) * 0.3);
    const double ms = renderMs(t, image);
    worst = std::max(worst, ms);
    total += ms;
  }
  t.resetZoom();
  const double all = renderMs(t, image);
  std::printf("%s: %zu trace entries\n", qPrintable(path), doc->snap->trace_entries());
  std::printf("zoom/pan frame: mean %.1f ms, worst %.1f ms over %d frames\n", total / frames, worst, frames);
  std::printf("whole trace frame: %.1f ms\n", all);
  return 0;
}
