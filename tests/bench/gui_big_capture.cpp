// bench_gui_big_capture FILE [--frames N] [--shots DIR] [--each]: the GUI on a big capture, in the real
// MainWindow, offscreen.
//   1. Loading: the file opened as a user opens it (MainWindow::openFile: read on a worker, then the
//      analysis on a worker); a 5 ms timer on the GUI thread records the longest gap between its ticks
//      until the analysis is shown (the window stays usable when no gap is long).
//   2. Frames: on the Timeline page, zoom steps in and out and pans, each followed by rendering the chart
//      view into an image (what the screen would show); median and worst frame.
//   3. Re-scope: a range selected on the Timeline (its timeRangeSelected signal, as a shift+drag ends) until
//      the tables show the re-scoped result (AnalysisPages::resultChanged, emitted once every page has
//      taken the result), for 1/10 and 1/1000 of the capture, and clearing the range.
// Prints each figure and the targets (frame under 100 ms, re-scope under 1 s). A benchmark, not a test: it
// runs by hand (CONTRIBUTING.md, "Benchmarks"); make the file with tests/bench/make_big_capture.py.
// --shots DIR saves the frames after loading, at the deepest zoom and with a range selected, to look at.
// --each prints every frame's time and visible span (which zoom levels are slow); with --shots it also saves
// each zoom-in frame (gui-big-zoom-NN.png).
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QImage>
#include <QPainter>
#include <QTabWidget>
#include <QTimer>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <vector>

#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/timeline_page.h"
#include "ui/charts/timeline_chart.h"
#include "ui/charts/zoom_chart_view.h"
#include "ui/shell/main_window.h"

using namespace oomscope::ui;

namespace {

double ms(const QElapsedTimer& t) { return double(t.nsecsElapsed()) / 1e6; }

// CPU time of the calling (GUI) thread: what a frame costs, whatever else the machine runs.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// Longest gap between ticks of a 5 ms timer on the GUI thread while it runs, counting from start() to the
// first tick and from the last tick to stop() too (a result shown right after start(), or work done just
// before stop(), blocks the thread as much as work between two ticks).
class GapMeter {
 public:
  GapMeter() {
    m_timer.setInterval(5);
    QObject::connect(&m_timer, &QTimer::timeout, [this] {
      m_longest = std::max(m_longest, ms(m_tick));
      m_tick.restart();
      ++m_ticks;
    });
  }
  void start() {
    m_longest = 0;
    m_ticks = 0;
    m_tick.restart();
    m_timer.start();
  }
  void stop() {
    m_timer.stop();
    m_longest = std::max(m_longest, ms(m_tick));
  }
  double longest() const { return m_longest; }
  long ticks() const { return m_ticks; }

 private:
  QTimer m_timer;
  QElapsedTimer m_tick;
  double m_longest = 0;
  long m_ticks = 0;
};

// Runs the event loop until the analysis pages show a new result (true) or the timeout passes.
bool waitForResult(AnalysisPages* pages, int timeoutMs) {
  QEventLoop loop;
  bool got = false;
  const auto c = QObject::connect(pages, &AnalysisPages::resultChanged, &loop, [&] {
    if (!pages->result()) return;
    got = true;
    loop.quit();
  });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
  QObject::disconnect(c);
  return got;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(std::lround(p * double(v.size() - 1))))];
}

const char* verdict(bool ok) { return ok ? "PASS" : "FAIL"; }

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QStringList args = QApplication::arguments();
  QString path, shots;
  int frames = 60;
  bool eachFrame = false;
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QStringLiteral("--frames") && i + 1 < args.size())
      frames = std::max(4, args[++i].toInt());
    else if (args[i] == QStringLiteral("--shots") && i + 1 < args.size())
      shots = args[++i];
    else if (args[i] == QStringLiteral("--each"))
      eachFrame = true;
    else if (!args[i].startsWith(QLatin1Char('-')))
      path = args[i];
  }
  if (path.isEmpty()) {
    std::fprintf(stderr,
                 "usage: bench_gui_big_capture FILE [--frames N] [--shots DIR] [--each]\n"
                 "  FILE: a capture, e.g. one made by tests/bench/make_big_capture.py --size 1G\n");
    return 2;
  }

  MainWindow window;
  window.setMessagePresenter([](QMessageBox::Icon, const QString& title, const QString& text) {
    std::fprintf(stderr, "message: %s: %s\n", qPrintable(title), qPrintable(text));
  });
  window.resize(1400, 900);
  window.show();
  AnalysisPages* pages = window.analysis();
  GapMeter gaps;

  // 1. Loading.
  QElapsedTimer clock;
  bool loaded = false, loadOk = false;
  double readMs = 0;
  QObject::connect(&window, &MainWindow::loadFinished, [&](bool ok) {
    loaded = true;
    loadOk = ok;
    readMs = ms(clock);
  });
  gaps.start();
  clock.start();
  window.openFile(path);
  const bool analysed = waitForResult(pages, 30 * 60 * 1000);
  gaps.stop();
  if (!loaded || !loadOk || !analysed) {
    std::fprintf(stderr, "%s: the capture did not load and analyse\n", qPrintable(path));
    return 1;
  }
  const double loadGap = gaps.longest();
  std::printf(
      "%s\n  load: read %.0f ms, shown with its analysis after %.0f ms (wall); longest GUI-thread "
      "gap %.1f ms over %ld ticks\n",
      qPrintable(path), readMs, ms(clock), loadGap, gaps.ticks());

  // 2. Frames on the Timeline page.
  TimelinePage* timeline = pages->timelinePage();
  if (auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("pages")))
    if (tabs->indexOf(timeline) >= 0) tabs->setCurrentWidget(timeline);
  QApplication::processEvents();
  ZoomChartView* view = timeline->view();
  QValueAxis* axis = timeline->chart()->xAxis();
  if (!axis || !timeline->isVisible()) {
    std::fprintf(stderr, "%s: the Timeline page shows no chart\n", qPrintable(path));
    return 1;
  }
  QImage image(view->viewport()->size(), QImage::Format_ARGB32_Premultiplied);
  const auto drawFrame = [&] {
    QPainter painter(&image);
    view->render(&painter);
  };
  const auto shoot = [&](const char* name) {
    if (shots.isEmpty()) return;
    // What the user sees once the loop has turned: pending layouts (the chart's new axes) done first.
    QCoreApplication::processEvents();
    const QString file = shots + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png");
    if (!window.grab().save(file)) std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
  };
  shoot("gui-big-loaded");
  std::vector<double> frameMs, frameCpuMs;
  const QPointF centre(view->viewport()->width() / 2.0, view->viewport()->height() / 2.0);
  const int zooms = std::max(2, frames / 3);
  for (int i = 0; i < frames; ++i) {
    QElapsedTimer frame;
    frame.start();
    const double cpu0 = threadCpuMs();
    if (i < zooms)
      view->zoomAt(centre, 0.6);  // in, toward the middle of the capture
    else if (i < frames - zooms)
      view->panPixels((i % 4 < 2) ? 90 : -70);
    else
      view->zoomAt(centre, 1.0 / 0.6);  // back out
    const double updateMs = ms(frame);
    drawFrame();
    frameMs.push_back(ms(frame));
    frameCpuMs.push_back(threadCpuMs() - cpu0);
    if (eachFrame)
      std::printf(
          "  frame %2d %-8s visible %.6f s: wall %.1f ms (series updated %.1f ms, drawn %.1f ms), GUI-thread "
          "CPU %.1f ms\n",
          i, i < zooms ? "zoom in" : (i < frames - zooms ? "pan" : "zoom out"), axis->max() - axis->min(),
          frameMs.back(), updateMs, frameMs.back() - updateMs, frameCpuMs.back());
    if (i == zooms - 1) shoot("gui-big-zoomed");
    if (eachFrame && i < zooms)
      shoot(qPrintable(QStringLiteral("gui-big-zoom-%1").arg(i, 2, 10, QLatin1Char('0'))));
  }
  std::printf(
      "  frames: %d zoom and pan steps, each rendered into a %dx%d image: wall median %.1f ms, 90th "
      "percentile %.1f ms, worst %.1f ms; GUI-thread CPU median %.1f ms, worst %.1f ms\n",
      frames, image.width(), image.height(), percentile(frameMs, 0.5), percentile(frameMs, 0.9),
      *std::max_element(frameMs.begin(), frameMs.end()), percentile(frameCpuMs, 0.5),
      *std::max_element(frameCpuMs.begin(), frameCpuMs.end()));
  view->resetZoom();
  QApplication::processEvents();

  // 3. Range re-scope (the whole capture's executions).
  const auto whole = pages->result();
  const auto& ex = whole->planTimeline->executions;
  if (ex.size() < 2) {
    std::printf("  re-scope: fewer than two executions of the analysed module; nothing to select\n");
    return 0;
  }
  const qint64 first = ex.front().start_ps, last = ex.back().end_ps, span = std::max<qint64>(last - first, 1);
  double worstScope = 0;
  struct Range {
    const char* name;
    qint64 from, to;
  };
  for (const Range& r : {Range{"1/10", first + span / 3, first + span / 3 + span / 10},
                         Range{"1/1000", first + span / 2, first + span / 2 + span / 1000}}) {
    gaps.start();
    clock.restart();
    emit timeline->timeRangeSelected(r.from, r.to);
    const bool ok = waitForResult(pages, 10 * 60 * 1000);
    const double scopeMs = ms(clock);
    gaps.stop();
    const auto result = pages->result();
    if (!ok || !result || !result->request.timeWindow) {
      std::fprintf(stderr, "%s: the range %s was not applied\n", qPrintable(path), r.name);
      return 1;
    }
    worstScope = std::max(worstScope, scopeMs);
    if (r.name == std::string_view("1/10")) shoot("gui-big-range");
    std::printf(
        "  re-scope to %-6s of the capture: tables updated after %.0f ms (%zu executions in the "
        "range, report built in %.0f ms on the worker); longest GUI-thread gap %.1f ms\n",
        r.name, scopeMs, result->planTimeline->executions.size(), result->buildSeconds * 1000,
        gaps.longest());
  }
  gaps.start();
  clock.restart();
  pages->clearRange();
  waitForResult(pages, 10 * 60 * 1000);
  gaps.stop();
  std::printf("  range cleared: whole capture shown again after %.0f ms; longest GUI-thread gap %.1f ms\n",
              ms(clock), gaps.longest());

  const double worstFrame = *std::max_element(frameMs.begin(), frameMs.end());
  std::printf("  target: window usable while loading (longest gap under 100 ms) ... %s (%.1f ms)\n",
              verdict(loadGap < 100), loadGap);
  std::printf(
      "  target: zoom and pan under 100 ms per frame ..................... %s (wall: median %.1f ms, "
      "worst %.1f ms; GUI-thread CPU: worst %.1f ms)\n",
      verdict(worstFrame < 100), percentile(frameMs, 0.5), worstFrame,
      *std::max_element(frameCpuMs.begin(), frameCpuMs.end()));
  std::printf("  target: a range re-scopes the tables in under 1 s ............... %s (worst %.0f ms)\n",
              verdict(worstScope < 1000), worstScope);
  return 0;
}
