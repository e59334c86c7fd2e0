// oomscope: the desktop debugger for GPU out-of-memory failures.
//
//   oomscope [file...]            opens the captures together (several files or a folder: one run, one
//                                 file per host); other files in windows of their own; a live recording
//                                 (.oomlive) opens on the Live page
//   oomscope --help | --version   answered without a display (the man page is made from --help at build time)
//   oomscope --screenshot F [--page TITLE] [--size WxH] [file]
//                                 (hidden) loads, shows the page, saves the window as F and quits; used for
//                                 the README picture and for checking layouts under Xvfb.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>
#include <string_view>

#include "core/snapshot/file_kind.h"
#include "oomscope_version.h"  // generated: cmake/OomscopeVersion.cmake
#include "ui/live/live_page.h"
#include "ui/shell/app_icon.h"
#include "ui/shell/main_window.h"
#include "ui/sim/simulator_page.h"
#include "ui/snapshot/snapshot_window.h"

namespace {

constexpr auto kExampleFile = "jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb";

// The bundled example: installed next to the program (<prefix>/share/oomscope/demo), or in the source tree
// when running from a build directory.
QString findExample() {
  const QString appDir = QCoreApplication::applicationDirPath();
  const QStringList candidates = {
      appDir + QStringLiteral("/../share/oomscope/demo/"),
      QStringLiteral(OOMSCOPE_SOURCE_DIR "/resources/demo/"),
  };
  for (const QString& dir : candidates) {
    const QFileInfo info(dir + QLatin1String(kExampleFile));
    if (info.isFile()) return QDir::cleanPath(info.absoluteFilePath());
  }
  return {};
}

// The LibTorch demo trainer (its own package): next to this program when installed, or in the build tree.
QString findDemoTrainer() {
  const QString appDir = QCoreApplication::applicationDirPath();
  for (const QString& candidate : {appDir + QStringLiteral("/oomscope-demo-trainer"),
                                   appDir + QStringLiteral("/../demo-trainer/oomscope-demo-trainer")}) {
    const QFileInfo info(candidate);
    if (info.isFile() && info.isExecutable()) return QDir::cleanPath(info.absoluteFilePath());
  }
  return {};
}

// A run that shows what the Live page is for: OOMs and splits under a 64 MiB budget, memory held per step
// until a restart from a checkpoint frees it.
QStringList demoTrainerArgs() {
  const QString checkpoint =
      QDir::temp().filePath(QStringLiteral("oomscope-demo-%1.ckpt").arg(QCoreApplication::applicationPid()));
  return {QStringLiteral("--steps"),         QStringLiteral("200"),
          QStringLiteral("--scenes"),        QStringLiteral("64"),
          QStringLiteral("--batch"),         QStringLiteral("2"),
          QStringLiteral("--width"),         QStringLiteral("8"),
          QStringLiteral("--budget"),        QStringLiteral("64MiB"),
          QStringLiteral("--hold-per-step"), QStringLiteral("4MiB"),
          QStringLiteral("--restart-above"), QStringLiteral("40MiB"),
          QStringLiteral("--checkpoint"),    checkpoint,
          QStringLiteral("--quiet")};
}

void selectPage(oomscope::ui::MainWindow& window, const QString& title) {
  auto* tabs = window.tabs();
  for (int i = 0; i < tabs->count(); ++i) {
    if (tabs->tabText(i).compare(title, Qt::CaseInsensitive) == 0) tabs->setCurrentIndex(i);
  }
}

// Saves the window once the load (if any) has finished and the layout has settled; exits 0 on success.
void scheduleScreenshot(oomscope::ui::MainWindow& window, const QString& file, const QString& page,
                        bool waitForLoad, oomscope::ui::LivePage* waitForRecording = nullptr) {
  auto shoot = [&window, file, page](bool loadOk) {
    if (!page.isEmpty()) selectPage(window, page);
    QTimer::singleShot(300, &window, [&window, file, loadOk] {
      const bool saved = window.grab().save(file);
      if (!saved) std::fprintf(stderr, "oomscope: cannot write the screenshot %s\n", qPrintable(file));
      QCoreApplication::exit(saved && loadOk ? 0 : 1);
    });
  };
  if (waitForRecording) {
    QObject::connect(
        waitForRecording, &oomscope::ui::LivePage::recordingOpened, &window, [shoot] { shoot(true); },
        Qt::SingleShotConnection);
    QObject::connect(
        waitForRecording, &oomscope::ui::LivePage::failed, &window, [shoot] { shoot(false); },
        Qt::SingleShotConnection);
  } else if (waitForLoad) {
    QObject::connect(&window, &oomscope::ui::MainWindow::loadFinished, &window, shoot,
                     Qt::SingleShotConnection);
  } else {
    QTimer::singleShot(0, &window, [shoot] { shoot(true); });
  }
  QTimer::singleShot(60'000, &window, [] {
    std::fprintf(stderr, "oomscope: gave up waiting for the load to take the screenshot\n");
    QCoreApplication::exit(3);
  });
}

// --screenshot of a file that is not a capture (a PyTorch snapshot, a Kineto trace, ...): those open in a
// window of their own, so that window is the one saved once its load has finished or failed.
bool isSnapshotFile(const QString& path) {
  if (QFileInfo(path).isDir()) return false;
  return oomscope::snapshot::detect_file_kind(path.toStdString()).kind !=
         oomscope::snapshot::FileKind::XSpace;
}

void scheduleSnapshotScreenshot(oomscope::ui::SnapshotWindow& window, const QString& file,
                                const QString& page) {
  auto shoot = [&window, file, page](bool loadOk) {
    for (int i = 0; i < window.tabs()->count(); ++i) {
      if (window.tabs()->tabText(i).compare(page, Qt::CaseInsensitive) == 0)
        window.tabs()->setCurrentIndex(i);
    }
    QTimer::singleShot(300, &window, [&window, file, loadOk] {
      const bool saved = window.grab().save(file);
      if (!saved) std::fprintf(stderr, "oomscope: cannot write the screenshot %s\n", qPrintable(file));
      QCoreApplication::exit(saved && loadOk ? 0 : 1);
    });
  };
  QObject::connect(
      &window, &oomscope::ui::SnapshotWindow::loaded, &window, [shoot] { shoot(true); },
      Qt::SingleShotConnection);
  QObject::connect(
      &window, &oomscope::ui::SnapshotWindow::failed, &window,
      [shoot](const QString& message) {
        std::fprintf(stderr, "oomscope: %s\n", qPrintable(message));
        shoot(false);
      },
      Qt::SingleShotConnection);
  QTimer::singleShot(60'000, &window, [] {
    std::fprintf(stderr, "oomscope: gave up waiting for the load to take the screenshot\n");
    QCoreApplication::exit(3);
  });
}

// The command line, for both the text-only path (--help, --version) and the GUI.
struct CommandLine {
  QCommandLineParser parser;
  QCommandLineOption version{
      {QStringLiteral("v"), QStringLiteral("version")},
      QStringLiteral("Displays the version, the git commit and the optional parts built in.")};
  QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                QStringLiteral("Save the window to FILE once loaded, then quit."),
                                QStringLiteral("FILE")};
  QCommandLineOption page{QStringLiteral("page"), QStringLiteral("With --screenshot: the tab to show."),
                          QStringLiteral("TITLE")};
  QCommandLineOption size{QStringLiteral("size"),
                          QStringLiteral("With --screenshot: window size (1280x800)."), QStringLiteral("WxH"),
                          QStringLiteral("1280x800")};

  CommandLine() {
    parser.setApplicationDescription(
        QStringLiteral("Debugger for GPU out-of-memory failures: opens XProf captures (.xplane.pb), PyTorch "
                       "allocator snapshots, "
                       "Kineto traces, memory timelines, JAX memory profiles and logs of failed runs."));
    parser.addHelpOption();
    parser.addOption(version);
    parser.addPositionalArgument(
        QStringLiteral("file"),
        QStringLiteral(
            "Files to open: a snapshot, trace, memory profile or log opens in a window of its own; several "
            "captures or a run folder open together as one run, one capture per host."),
        QStringLiteral("[file...]"));
    for (auto* option : {&screenshot, &page, &size}) {
      option->setFlags(QCommandLineOption::HiddenFromHelp);
      parser.addOption(*option);
    }
  }

  // Parses the arguments; prints the version and returns false when asked for it (help exits in process()).
  bool process(const QCoreApplication& app) {
    parser.process(app);
    if (!parser.isSet(version)) return true;
    std::printf("oomscope %s\n%s", OOMSCOPE_VERSION_STRING, OOMSCOPE_VERSION_DETAILS);
    return false;
  }
};

void setIdentity() {
  QCoreApplication::setOrganizationName(QStringLiteral("oomscope"));
  QCoreApplication::setApplicationName(QStringLiteral("oomscope"));
  QCoreApplication::setApplicationVersion(QStringLiteral(OOMSCOPE_VERSION_STRING));
}

// True when the arguments ask only for text (help or version): then no display is needed.
bool textOnly(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version")
      return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (textOnly(argc, argv)) {
    QCoreApplication app(argc, argv);
    setIdentity();
    CommandLine commandLine;
    commandLine.process(app);
    return 0;
  }
  QApplication app(argc, argv);
  setIdentity();
  QApplication::setDesktopFileName(QStringLiteral("oomscope"));
  QApplication::setWindowIcon(oomscope::ui::appIcon());

  CommandLine commandLine;
  if (!commandLine.process(app)) return 0;
  const QCommandLineParser& parser = commandLine.parser;

  QStringList files = parser.positionalArguments();
  // Live recordings open on the Live page; everything else is a capture.
  QStringList recordings;
  for (auto it = files.begin(); it != files.end();) {
    if (oomscope::ui::LivePage::opensFile(*it)) {
      recordings << *it;
      it = files.erase(it);
    } else {
      ++it;
    }
  }
  // The simulator needs no capture: every window has it, also those opened for extra files or drops.
  oomscope::ui::MainWindow::registerPage(QObject::tr("Simulator"), [](oomscope::ui::MainWindow& w) {
    return oomscope::ui::createSimulatorPage(&w);
  });
  oomscope::ui::LivePage* livePage = nullptr;
  const QString demoTrainer = findDemoTrainer();
  oomscope::ui::MainWindow::registerPage(
      QObject::tr("Live"), [&livePage, demoTrainer](oomscope::ui::MainWindow& w) {
        auto* page = new oomscope::ui::LivePage(&w);
        // A live session's OOM snapshot opens in this window's file path, which lands on the OOM entry.
        QObject::connect(page, &oomscope::ui::LivePage::openSnapshotRequested, &w,
                         [&w](const QString& path) { w.openFile(path); });
        if (!demoTrainer.isEmpty()) page->setDemoTrainer(demoTrainer, demoTrainerArgs());
        if (!livePage) livePage = page;
        return page;
      });
  oomscope::ui::MainWindow window;
  window.setExamplePath(findExample());

  if (parser.isSet(commandLine.screenshot)) {
    const QStringList wh = parser.value(commandLine.size).split(QLatin1Char('x'));
    const bool sized = wh.size() == 2 && wh[0].toInt() > 0 && wh[1].toInt() > 0;
    if (files.size() == 1 && recordings.isEmpty() && isSnapshotFile(files.first())) {
      oomscope::ui::SnapshotWindow snapshotWindow;
      snapshotWindow.resize(sized ? QSize(wh[0].toInt(), wh[1].toInt()) : QSize(1280, 800));
      scheduleSnapshotScreenshot(snapshotWindow, parser.value(commandLine.screenshot),
                                 parser.value(commandLine.page));
      snapshotWindow.show();
      snapshotWindow.load(files.first());
      return QApplication::exec();
    }
    if (sized) window.resize(wh[0].toInt(), wh[1].toInt());
    scheduleScreenshot(window, parser.value(commandLine.screenshot), parser.value(commandLine.page),
                       !files.isEmpty(), files.isEmpty() && !recordings.isEmpty() ? livePage : nullptr);
  }
  if (!recordings.isEmpty() && livePage) {
    livePage->openRecording(recordings.first());
    window.tabs()->setCurrentWidget(livePage);
  }
  window.show();
  window.openFiles(files);
  return QApplication::exec();
}
