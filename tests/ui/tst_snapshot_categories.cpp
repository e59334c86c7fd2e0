// A snapshot window's category rules (docs/categories.md): Categories > Load Category Rules categorises the
// real cs336 snapshot again on the worker, the Top Allocations model (under QAbstractItemModelTester)
// shows each block's category with the rule that decided it (column and tooltip), a bad file is named with
// its line and changes nothing, the file is remembered for the session (a window opened later uses it),
// and the built-in rules come back. Screenshots of the page with rules and with a refused file.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/screenshots.h"
#include "ui/snapshot/category_rules_control.h"
#include "ui/snapshot/snapshot_models.h"
#include "ui/snapshot/snapshot_window.h"

using namespace oomscope;
using namespace oomscope::ui;

namespace {

// The blocks live at the peak that the team rule names swiglu: `oomscope-cli report` of the same snapshot
// with the same rules prints "swiglu 162 MiB x36".
constexpr int kSwigluBlocks = 36;

QString data(const char* name) { return QStringLiteral(OOMSCOPE_TEST_DATA "/") + QString::fromUtf8(name); }

QString write(const QTemporaryDir& dir, const char* name, const char* text) {
  const QString path = dir.filePath(QString::fromUtf8(name));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(text);
  return path;
}

// Rows of the Top Allocations model whose Category is `label`.
int rowsLabelled(const TopAllocationsModel& m, const QString& label) {
  int n = 0;
  for (int r = 0; r < m.rowCount(); ++r)
    n += m.data(m.index(r, TopAllocationsModel::Category)).toString() == label;
  return n;
}

}  // namespace

class TstSnapshotCategories : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_rules, m_bad;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // The three SwiGLU lines of the cs336 model (3 x 54 MiB live at the bf16 run's peak).
    m_rules = write(m_dir, "team.rules", "# cs336\nsite swiglu\\.py:3[234] in forward -> swiglu\n");
    m_bad = write(m_dir, "bad.rules", "site ok -> fine\nfile (unclosed -> broken\n");
  }

  void loadingRulesCategorisesAgainAndSaysWhichRuleDecided() {
    SnapshotWindow w;
    QSignalSpy loaded(&w, &SnapshotWindow::loaded);
    w.load(data("torch_snapshot_cs336_bf16_ctx128.pickle"));
    QVERIFY(loaded.wait(120000));
    QAbstractItemModelTester tester(w.topModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!w.document()->rules);
    QCOMPARE(rowsLabelled(*w.topModel(), QStringLiteral("swiglu")), 0);
    QVERIFY(w.categories()->label()->text().contains(QStringLiteral("the built-in rules")));
    QSignalSpy applied(&w, &SnapshotWindow::categoriesApplied);
    w.applyCategoryRules(m_rules);
    QVERIFY(applied.wait(120000));
    QVERIFY(w.document()->rules);
    QCOMPARE(SnapshotWindow::sessionCategoryRules(), m_rules);
    const TopAllocationsModel& m = *w.topModel();
    QCOMPARE(rowsLabelled(m, QStringLiteral("swiglu")), kSwigluBlocks);
    for (int r = 0; r < m.rowCount(); ++r) {
      if (m.data(m.index(r, TopAllocationsModel::Category)).toString() != QStringLiteral("swiglu")) continue;
      const QString rule = m.data(m.index(r, TopAllocationsModel::Rule)).toString();
      QVERIFY2(rule.startsWith(QStringLiteral("user rule at %1:2 (site ~ ").arg(m_rules)), qPrintable(rule));
      QVERIFY2(rule.contains(QStringLiteral("matched the site ")), qPrintable(rule));
      const QString tip = m.data(m.index(r, TopAllocationsModel::Category), Qt::ToolTipRole).toString();
      QCOMPARE(tip, QStringLiteral("swiglu: ") + rule);
    }
    QVERIFY(QString::fromStdString(w.document()->reportText).contains(QStringLiteral("swiglu")));
    QVERIFY2(w.categories()->label()->text().contains(QStringLiteral("team.rules")),
             qPrintable(w.categories()->label()->text()));
    w.resize(1280, 820);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.tabs()->setCurrentIndex(2);  // Top Allocations
    QCOMPARE(w.tabs()->tabText(2), QStringLiteral("Top Allocations"));
    shoot(w, QStringLiteral("snapshot-categories-rules.png"));

    // A file that cannot be used: its name and line, and nothing changes.
    QSignalSpy failed(&w, &SnapshotWindow::categoryRulesFailed);
    w.applyCategoryRules(m_bad);
    QVERIFY(failed.wait(60000));
    const QString message = failed.at(0).at(0).toString();
    QVERIFY2(message.contains(m_bad + QStringLiteral(": line 2: the regular expression /(unclosed/ does not "
                                                     "compile")),
             qPrintable(message));
    QVERIFY(w.categories()->label()->text().contains(QStringLiteral("line 2")));
    QCOMPARE(SnapshotWindow::sessionCategoryRules(), m_rules);
    QCOMPARE(rowsLabelled(m, QStringLiteral("swiglu")), kSwigluBlocks);
    shoot(w, QStringLiteral("snapshot-categories-refused.png"));
    w.applyCategoryRules(m_dir.filePath(QStringLiteral("no-such.rules")));
    QVERIFY(failed.wait(60000));
    QVERIFY2(
        failed.at(1).at(0).toString().contains(QStringLiteral("no-such.rules: the category rules file does "
                                                              "not exist")),
        qPrintable(failed.at(1).at(0).toString()));
  }

  void aWindowOpenedLaterUsesTheSessionRulesUntilTheBuiltInOnesComeBack() {
    QCOMPARE(SnapshotWindow::sessionCategoryRules(), m_rules);
    SnapshotWindow w;
    QSignalSpy applied(&w, &SnapshotWindow::categoriesApplied);
    w.load(data("torch_snapshot_cs336_bf16_ctx128.pickle"));
    QVERIFY(applied.wait(120000));
    QVERIFY(w.document()->rules);
    QCOMPARE(rowsLabelled(*w.topModel(), QStringLiteral("swiglu")), kSwigluBlocks);
    w.applyCategoryRules(QString());
    QVERIFY(applied.wait(120000));
    QVERIFY(!w.document()->rules);
    QCOMPARE(rowsLabelled(*w.topModel(), QStringLiteral("swiglu")), 0);
    QCOMPARE(SnapshotWindow::sessionCategoryRules(), QString());
  }

  void rulesOnAFileThatIsNotASnapshotAreRefused() {
    SnapshotWindow w;
    QSignalSpy loaded(&w, &SnapshotWindow::loaded);
    w.load(data("torch_memory_timeline_raw_hta.raw.gz"));
    QVERIFY(loaded.wait(60000));
    QSignalSpy failed(&w, &SnapshotWindow::categoryRulesFailed);
    w.applyCategoryRules(m_rules);
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("PyTorch allocator snapshots")));
  }
};

QTEST_MAIN(TstSnapshotCategories)
#include "tst_snapshot_categories.moc"
