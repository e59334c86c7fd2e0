// The job layer: progress reaches the UI thread (throttled), cancel yields neither result nor error, a
// superseded job's result is dropped, errors name the file; then CaptureSession over the real reader.
#include <QtTest>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/util/error.h"
#include "ui/session/capture_session.h"
#include "ui/session/job_tracker.h"

using namespace oomscope;
using namespace oomscope::ui;
using namespace std::chrono_literals;

namespace {

const QString kGood = QStringLiteral(OOMSCOPE_TEST_DATA "/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb");
const QString kOther = QStringLiteral(OOMSCOPE_TEST_DATA "/jax0.8_rocm_mi300x_gemm.xplane.pb");
const QString kBig = QStringLiteral(OOMSCOPE_TEST_DATA "/tf2_gpu_v100x8_bert_multiworker.xplane.pb");
const QString kCorrupt =
    QStringLiteral(OOMSCOPE_TEST_DATA "/CORRUPT_utf8_mangled_jax_tpu_v6e_inference.xplane.pb");

// A job that runs until stopped, checking its token like the reader does.
JobTracker::Work<int> untilStopped(std::atomic<bool>& started) {
  return [&started](ProgressSink& progress, std::stop_token stop) -> int {
    started = true;
    for (int i = 0; i < 10'000; ++i) {
      if (stop.stop_requested()) throw Cancelled("endless.pb");
      progress.report(i / 10'000.0, "spinning");
      std::this_thread::sleep_for(1ms);
    }
    return 1;
  };
}

JobTracker::Work<int> returnsAfter(std::chrono::milliseconds delay, int value) {
  return [delay, value](ProgressSink&, std::stop_token) {
    std::this_thread::sleep_for(delay);
    return value;
  };
}

}  // namespace

class TestCaptureSession : public QObject {
  Q_OBJECT

 private slots:
  void progressArrivesThrottled() {
    JobTracker jobs;
    jobs.setProgressInterval(20ms);
    QSignalSpy progress(&jobs, &JobTracker::progress);
    QSignalSpy busy(&jobs, &JobTracker::busyChanged);
    std::vector<int> results;
    // 200k reports in about 100 ms: forwarding each would flood the event loop.
    jobs.start<int>(
        QStringLiteral("file.pb"),
        [](ProgressSink& sink, std::stop_token) {
          const auto end = std::chrono::steady_clock::now() + 100ms;
          int n = 0;
          while (std::chrono::steady_clock::now() < end) sink.report(0.5 * (n++ % 2), "reading");
          sink.report(1.0, "reading");
          return n;
        },
        [&](const int& n) { results.push_back(n); });
    QVERIFY(jobs.busy());
    QTRY_COMPARE(results.size(), std::size_t(1));
    QVERIFY(results[0] > 1000);
    QVERIFY2(progress.count() >= 2 && progress.count() <= 12, qPrintable(QString::number(progress.count())));
    QCOMPARE(progress.last().at(0).toDouble(), 1.0);  // the final report always gets through
    QCOMPARE(progress.last().at(1).toString(), QStringLiteral("reading"));
    QVERIFY(!jobs.busy());
    QCOMPARE(busy.count(), 2);
  }

  void cancelGivesNoResultAndNoError() {
    JobTracker jobs;
    QSignalSpy failed(&jobs, &JobTracker::failed);
    QSignalSpy cancelled(&jobs, &JobTracker::cancelled);
    QSignalSpy progress(&jobs, &JobTracker::progress);
    std::atomic<bool> started = false;
    int results = 0;
    jobs.start<int>(QStringLiteral("endless.pb"), untilStopped(started), [&](const int&) { ++results; });
    QTRY_VERIFY(started.load());
    QTRY_VERIFY(progress.count() > 0);
    jobs.cancel();
    QCOMPARE(cancelled.count(), 1);  // at once, not when the worker notices
    QCOMPARE(cancelled.first().at(0).toString(), QStringLiteral("endless.pb"));
    QVERIFY(!jobs.busy());
    const int progressAtCancel = progress.count();
    QVERIFY(jobs.settle(10000));  // the worker stopped; whatever it queued has been delivered
    QCOMPARE(results, 0);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(progress.count(), progressAtCancel);
  }

  void cancelDropsAResultThatArrivesAnyway() {
    JobTracker jobs;
    QSignalSpy failed(&jobs, &JobTracker::failed);
    int results = 0;
    jobs.start<int>(QStringLiteral("stubborn.pb"), returnsAfter(50ms, 7), [&](const int&) { ++results; });
    jobs.cancel();
    QVERIFY(jobs.settle(10000));
    QCOMPARE(results, 0);
    QCOMPARE(failed.count(), 0);
  }

  void staleGenerationIsDropped_data() {
    QTest::addColumn<int>("firstMs");
    QTest::addColumn<int>("secondMs");
    QTest::newRow("first finishes later") << 150 << 10;
    QTest::newRow("first finishes sooner") << 10 << 150;
  }

  void staleGenerationIsDropped() {
    QFETCH(int, firstMs);
    QFETCH(int, secondMs);
    JobTracker jobs;
    QList<int> results;
    const auto collect = [&](const int& v) { results << v; };
    const quint64 a =
        jobs.start<int>(QStringLiteral("a.pb"), returnsAfter(std::chrono::milliseconds(firstMs), 1), collect);
    const quint64 b = jobs.start<int>(QStringLiteral("b.pb"),
                                      returnsAfter(std::chrono::milliseconds(secondMs), 2), collect);
    QCOMPARE(b, a + 1);
    QTRY_COMPARE(results, QList<int>{2});
    QVERIFY(jobs.settle(10000));
    QCOMPARE(results, QList<int>{2});
    QVERIFY(!jobs.busy());
  }

  void errorsNameTheFile_data() {
    QTest::addColumn<int>("what");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<ErrorKind>("expectedKind");
    QTest::newRow("oomscope::Error") << 0
                                     << QStringLiteral("/data/run7.xplane.pb: protobuf damaged at byte 12")
                                     << ErrorKind::Damaged;
    QTest::newRow("Error without file")
        << 1 << QStringLiteral("/data/run7.xplane.pb: bad value") << ErrorKind::InvalidArgument;
    QTest::newRow("std exception") << 2 << QStringLiteral("/data/run7.xplane.pb: unexpected error: boom")
                                   << ErrorKind::Internal;
    QTest::newRow("bad_alloc") << 3
                               << QStringLiteral("/data/run7.xplane.pb: not enough memory to load this file.")
                               << ErrorKind::TooLarge;
  }

  void errorsNameTheFile() {
    QFETCH(int, what);
    QFETCH(QString, expected);
    QFETCH(ErrorKind, expectedKind);
    JobTracker jobs;
    QSignalSpy failed(&jobs, &JobTracker::failed);
    QSignalSpy cancelled(&jobs, &JobTracker::cancelled);
    jobs.start<int>(
        QStringLiteral("/data/run7.xplane.pb"),
        [what](ProgressSink&, std::stop_token) -> int {
          switch (what) {
            case 0:
              throw Error(ErrorKind::Damaged, "/data/run7.xplane.pb", "protobuf damaged at byte 12").at(12);
            case 1:
              throw Error(ErrorKind::InvalidArgument, "", "bad value");
            case 2:
              throw std::runtime_error("boom");
            default:
              throw std::bad_alloc();
          }
        },
        [](const int&) { QFAIL("no result expected"); });
    QTRY_COMPARE(failed.count(), 1);
    const auto error = failed.first().at(0).value<JobError>();
    QCOMPARE(error.subject, QStringLiteral("/data/run7.xplane.pb"));
    QCOMPARE(error.file, QStringLiteral("/data/run7.xplane.pb"));
    QCOMPARE(error.text(), expected);
    QCOMPARE(error.kind, expectedKind);
    QCOMPARE(error.offset, what == 0 ? qint64(12) : qint64(-1));
    QCOMPARE(cancelled.count(), 0);
    QVERIFY(!jobs.busy());
  }

  void selfCancelledJobEndsItsGeneration() {
    JobTracker jobs;
    QSignalSpy cancelled(&jobs, &JobTracker::cancelled);
    jobs.start<int>(
        QStringLiteral("x.pb"), [](ProgressSink&, std::stop_token) -> int { throw Cancelled("x.pb"); },
        [](const int&) {});
    QTRY_COMPARE(cancelled.count(), 1);
    QVERIFY(!jobs.busy());
  }

  void destroyingTheTrackerStopsTheJob() {
    std::atomic<bool> started = false;
    auto jobs = std::make_unique<JobTracker>();
    jobs->start<int>(QStringLiteral("endless.pb"), untilStopped(started),
                     [](const int&) { QFAIL("dropped"); });
    QTRY_VERIFY(started.load());
    QElapsedTimer timer;
    timer.start();
    jobs.reset();  // waits for the worker, which sees its stop token within a millisecond
    // Generous: a worker that ignored its stop token would never return (the bound only turns a hang into
    // a failure on a loaded machine).
    QVERIFY(timer.elapsed() < 10000);
    QCoreApplication::sendPostedEvents();  // nothing is delivered to the destroyed tracker
  }

  // ---- CaptureSession over the real reader ----

  void sessionLoadsAndKeepsCaptureOnError() {
    CaptureSession session;
    QSignalSpy loaded(&session, &CaptureSession::loaded);
    QSignalSpy failed(&session, &CaptureSession::loadFailed);
    session.open(kGood);
    QVERIFY(session.isLoading());
    QCOMPARE(session.loadingPath(), kGood);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QCOMPARE(session.current().path, kGood);
    QCOMPARE(session.current().capture->modules().size(), std::size_t(9));
    QVERIFY(session.current().loadSeconds > 0);

    session.open(kCorrupt);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    const auto error = failed.first().at(0).value<JobError>();
    QCOMPARE(error.subject, kCorrupt);
    QCOMPARE(error.kind, ErrorKind::Damaged);
    QCOMPARE(error.offset, qint64(1));
    QVERIFY2(error.text().contains(QLatin1String("CORRUPT_utf8_mangled_jax_tpu_v6e_inference")),
             qPrintable(error.text()));
    QCOMPARE(session.current().path, kGood);  // the previous capture stays
    QCOMPARE(loaded.count(), 1);
  }

  void sessionDropsTheSupersededLoad() {
    CaptureSession session;
    QSignalSpy loaded(&session, &CaptureSession::loaded);
    QSignalSpy failed(&session, &CaptureSession::loadFailed);
    session.open(kBig);
    session.open(kGood);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QVERIFY(session.jobs().settle(20000));  // the superseded load of kBig has ended too
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(loaded.first().at(0).value<LoadedCapture>().path, kGood);
    QCOMPARE(session.current().path, kGood);
    QCOMPARE(failed.count(), 0);
  }

  void sessionCancelReloadClose() {
    CaptureSession session;
    QSignalSpy loaded(&session, &CaptureSession::loaded);
    QSignalSpy failed(&session, &CaptureSession::loadFailed);
    QSignalSpy cancelled(&session, &CaptureSession::loadCancelled);
    QSignalSpy closed(&session, &CaptureSession::closed);
    session.open(kOther);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);

    session.open(kBig);
    session.cancel();
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(session.jobs().settle(20000));
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(session.current().path, kOther);

    session.reload();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
    QCOMPARE(session.current().path, kOther);

    session.close();
    QCOMPARE(closed.count(), 1);
    QVERIFY(!session.current());
    session.reload();  // nothing to reload
    QVERIFY(!session.isLoading());
  }

  void sessionReportsReaderProgress() {
    CaptureSession session;
    session.jobs().setProgressInterval(0ms);
    QSignalSpy progress(&session, &CaptureSession::progress);
    QSignalSpy loaded(&session, &CaptureSession::loaded);
    session.open(kBig);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QVERIFY(progress.count() >= 2);
    for (const auto& args : progress) {
      const double f = args.at(0).toDouble();
      QVERIFY(f >= 0.0 && f <= 1.0);
    }
    QCOMPARE(progress.last().at(0).toDouble(), 1.0);
  }

  void sessionRejectsANullCapture() {
    CaptureSession session([](const std::string&, ProgressSink&, std::stop_token) {
      return std::shared_ptr<const capture::Capture>();
    });
    QSignalSpy failed(&session, &CaptureSession::loadFailed);
    QSignalSpy loaded(&session, &CaptureSession::loaded);
    session.open(QStringLiteral("nothing.pb"));
    QTRY_COMPARE(failed.count(), 1);
    QVERIFY(failed.first().at(0).value<JobError>().text().startsWith(QLatin1String("nothing.pb")));
    QCOMPARE(failed.first().at(0).value<JobError>().kind, ErrorKind::Internal);
    QCOMPARE(loaded.count(), 0);
    QVERIFY(!session.current());
  }
};

QTEST_GUILESS_MAIN(TestCaptureSession)
#include "tst_capture_session.moc"
