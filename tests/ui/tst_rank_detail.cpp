// The Ranks window's pane for a selected rank (rank_detail_pane.h) and its Categories menu, over the
// per-rank sets of tests/data/ranks: rank 2 of oom_job shows its categories and sites at its peak with the
// CLI's figures (`oomscope-cli report tests/data/ranks/oom_job [--categories
// tests/data/categories/ranks.rules]`), sorted by bytes; a double-click asks for its snapshot; the user's
// rules (chosen in the Load Category Rules… dialog, or applied directly) compare the ranks again, a bad rules
// file changes nothing, and Kineto traces (no stacks) say so.
// Screenshots with rank 2 selected, with and without the rules.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTimer>
#include <QtTest>

#include "tests/ui/rank_job_files.h"
#include "tests/ui/screenshots.h"
#include "tests/ui/temp_config_home.h"
#include "ui/models/kineto_rank_model.h"
#include "ui/models/snapshot_rank_imbalance_model.h"
#include "ui/models/snapshot_rank_model.h"
#include "ui/snapshot/category_rules_menu.h"
#include "ui/snapshot/rank_detail_pane.h"
#include "ui/snapshot/ranks_window.h"
#include "ui/snapshot/snapshot_rank_detail_model.h"
#include "ui/snapshot/snapshot_window.h"

using namespace oomscope::ui;

namespace {

const QString kRules = QStringLiteral(OOMSCOPE_TEST_DATA) + QStringLiteral("/categories/ranks.rules");

// The row of `name` in a model's column 0, or -1.
int rowOf(const QAbstractItemModel& m, const QString& name, int column = 0) {
  for (int r = 0; r < m.rowCount(); ++r)
    if (m.index(r, column).data().toString() == name) return r;
  return -1;
}

// The oom_job's Ranks window, loaded (and the session's rules back to none, so that the load is built-in).
RanksWindow* openOomJob() {
  CategoryRulesMenu::setSessionRules(QString());
  auto* w = RanksWindow::openFiles(oomJob());
  QSignalSpy loaded(w, &RanksWindow::loaded);
  if (!loaded.wait(60000)) return nullptr;
  w->resize(1500, 860);
  return w;
}

// Answers the next file dialog that opens (a QFileDialog, as QFileDialog::getOpenFileName shows it):
// records its title and name filters, then chooses `path`, or cancels when `path` is empty.
struct FileDialogAnswer {
  QString title;
  QStringList filters;
  bool seen = false;
  bool accepted = false;  // the dialog took the file and closed
};
void answerNextFileDialog(FileDialogAnswer* answer, const QString& path) {
  auto* poll = new QTimer;
  poll->setInterval(20);
  QObject::connect(poll, &QTimer::timeout, poll, [poll, answer, path] {
    // The offscreen platform activates no window, so look for the dialog among the visible top levels.
    QFileDialog* dialog = nullptr;
    for (QWidget* w : QApplication::topLevelWidgets())
      if (auto* d = qobject_cast<QFileDialog*>(w); d && d->isVisible()) dialog = d;
    if (!dialog) return;
    poll->stop();
    poll->deleteLater();
    answer->seen = true;
    answer->title = dialog->windowTitle();
    answer->filters = dialog->nameFilters();
    if (path.isEmpty()) {
      dialog->reject();
      return;
    }
    // As a user types it: the whole path in the file name field, then Open.
    auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    if (name) name->setText(QFileInfo(path).absoluteFilePath());
    QMetaObject::invokeMethod(dialog, "accept");  // a protected slot of QFileDialog
    answer->accepted = !dialog->isVisible();
    if (!answer->accepted) dialog->reject();  // the dialog refused the file: fail, do not hang
  });
  poll->start();
}
}  // namespace

class TestRankDetail : public QObject {
  Q_OBJECT

 private slots:
  // Rank 2 of oom_job selected: the pane names it and shows its categories and sites at its peak with the
  // CLI's figures (built-in categories: "parameters 1.00 GiB x1"; the site of the unsharded embedding).
  void selectingARankShowsWhatItHolds() {
    RanksWindow* w = openOomJob();
    QVERIFY(w);
    RankDetailPane* pane = w->detailPane();
    QVERIFY(pane->messageLabel()->isVisible());
    QCOMPARE(pane->messageLabel()->text(),
             QStringLiteral(
                 "Select a rank to see what it holds at its peak (double-click to open its snapshot)."));
    QVERIFY(!pane->openButton()->isEnabled());
    QAbstractItemModelTester t1(pane->categoriesModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(pane->sitesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(w->selectRank(2));
    QVERIFY(!pane->messageLabel()->isVisible());
    QVERIFY(pane->categoriesView()->isVisible());
    QCOMPARE(pane->headerLabel()->text(),
             QStringLiteral(
                 "Rank 2 (rank2_oom.pickle, device 2): at its peak 4.03 GiB allocated, 4.52 GiB reserved"));
    QVERIFY(pane->headerLabel()->text().contains(QStringLiteral("4.03 GiB allocated, 4.52 GiB reserved")));
    const SnapshotRankDetailModel* cats = pane->categoriesModel();
    // gradients 2.51 GiB x8, parameters 1.00 GiB x1, other 529 MiB x9
    QCOMPARE(cats->rowCount(), 3);
    QCOMPARE(cats->index(0, SnapshotRankDetailModel::Name).data().toString(), QStringLiteral("gradients"));
    QCOMPARE(cats->index(0, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("2.51 GiB"));
    QCOMPARE(cats->index(0, SnapshotRankDetailModel::Count).data().toString(), QStringLiteral("8"));
    const int params = rowOf(*cats, QStringLiteral("parameters"));
    QVERIFY(params >= 0);
    QCOMPARE(cats->index(params, SnapshotRankDetailModel::Bytes).data().toString(),
             QStringLiteral("1.00 GiB"));
    QCOMPARE(cats->index(params, SnapshotRankDetailModel::Count).data().toString(), QStringLiteral("1"));
    QCOMPARE(cats->index(2, SnapshotRankDetailModel::Name).data().toString(), QStringLiteral("other"));
    QCOMPARE(cats->index(2, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("529 MiB"));
    QCOMPARE(cats->index(2, SnapshotRankDetailModel::Count).data().toString(), QStringLiteral("9"));
    // 13 sites: 2.00 GiB DivBackward0, 1.00 GiB the unsharded embedding, 522 MiB BmmBackward0, ... 8 more
    const SnapshotRankDetailModel* sites = pane->sitesModel();
    QCOMPARE(sites->rowCount(), 13);
    QCOMPARE(sites->index(0, SnapshotRankDetailModel::Name).data().toString(),
             QStringLiteral("no Python frame; in torch::autograd::generated::DivBackward0::apply"));
    QCOMPARE(sites->index(0, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("2.00 GiB"));
    QCOMPARE(sites->index(1, SnapshotRankDetailModel::Name).data().toString(),
             QStringLiteral("/synthetic/make_rank_sets.py:1 in unsharded_embedding"));
    QCOMPARE(sites->index(1, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("1.00 GiB"));
    QCOMPARE(sites->index(2, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("522 MiB"));
    bool sourceNamed = false;
    for (const QLabel* l : pane->findChildren<QLabel*>())
      sourceNamed |=
          l->text() == QStringLiteral("At the peak by category (guessed from stacks by the built-in rules):");
    QVERIFY(sourceNamed);
    QVERIFY(pane->openButton()->isEnabled());
    shoot(*w, QStringLiteral("ranks_window_rank2_selected.png"));
    // Rank 0 next: the pane follows the selection.
    QVERIFY(w->selectRank(0));
    QVERIFY(pane->headerLabel()->text().startsWith(QStringLiteral("Rank 0 ")));
    QCOMPARE(rowOf(*pane->categoriesModel(), QStringLiteral("parameters")), -1);
    w->close();
  }

  // Clicking the Bytes header sorts by the figure, not by its text ("522 MiB" above "2.00 GiB" as text).
  void detailSortsByBytes() {
    RanksWindow* w = openOomJob();
    QVERIFY(w);
    QVERIFY(w->selectRank(2));
    QTableView* view = w->detailPane()->sitesView();
    view->sortByColumn(SnapshotRankDetailModel::Bytes, Qt::AscendingOrder);
    QAbstractItemModel* shown = view->model();
    qint64 last = -1;
    for (int r = 0; r < shown->rowCount(); ++r) {
      const qint64 b =
          shown->index(r, SnapshotRankDetailModel::Bytes).data(RecordTableModel::SortRole).toLongLong();
      QVERIFY2(b >= last, qPrintable(QStringLiteral("row %1").arg(r)));
      last = b;
    }
    QCOMPARE(shown->index(shown->rowCount() - 1, SnapshotRankDetailModel::Bytes).data().toString(),
             QStringLiteral("2.00 GiB"));
    view->sortByColumn(SnapshotRankDetailModel::Bytes, Qt::DescendingOrder);
    QCOMPARE(shown->index(0, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("2.00 GiB"));
    QCOMPARE(shown->index(1, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("1.00 GiB"));
    w->close();
  }

  // A double-click on rank 2's row (and Open Snapshot) asks for rank 2's file, and a snapshot window opens
  // it.
  void doubleClickOpensTheRanksSnapshot() {
    RanksWindow* w = openOomJob();
    QVERIFY(w);
    QSignalSpy open(w, &RanksWindow::openRequested);
    const int before = int(SnapshotWindow::openWindows().size());
    QTableView* view = w->rankView();
    int row = -1;
    for (int r = 0; r < view->model()->rowCount(); ++r)
      if (view->model()->index(r, SnapshotRankModel::Rank).data(RecordTableModel::SortRole).toLongLong() == 2)
        row = r;
    QVERIFY(row >= 0);
    const QRect cell = view->visualRect(view->model()->index(row, SnapshotRankModel::File));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(open.count(), 1);
    QCOMPARE(open.first().first().toString(), oomJob()[2]);
    QCOMPARE(int(SnapshotWindow::openWindows().size()), before + 1);
    QVERIFY(w->detailPane()->headerLabel()->text().startsWith(QStringLiteral("Rank 2 ")));
    w->detailPane()->openButton()->click();
    QCOMPARE(open.count(), 2);
    QCOMPARE(open.last().first().toString(), oomJob()[2]);
    for (SnapshotWindow* s : SnapshotWindow::openWindows()) s->close();
    QCoreApplication::processEvents();
    w->close();
  }

  // Categories > Load Category Rules: the ranks are compared again by the user's categories (rank 2 holds
  // "embedding table 1.00 GiB x1" beyond the median), in the imbalance, the verdict's rows, the ranks
  // table and the pane; the capacity stays. Built-in Categories Only brings "parameters" back.
  void rulesRecompareTheRanks() {
    RanksWindow* w = openOomJob();
    QVERIFY(w);
    QVERIFY(w->categoriesMenu()->loadAction()->isEnabled());
    QVERIFY(!w->categoriesMenu()->reloadAction()->isEnabled());
    QVERIFY(rowOf(*w->imbalanceModel(), QStringLiteral("parameters"), RankImbalanceModel::Name) >= 0);
    w->applyCapacity(QStringLiteral("80 GiB"));
    QSignalSpy loaded(w, &RanksWindow::loaded);
    QVERIFY(loaded.wait(60000));
    QVERIFY(w->selectRank(2));
    QSignalSpy applied(w, &RanksWindow::categoriesApplied);
    w->applyCategoryRules(kRules);
    QVERIFY(applied.wait(60000));
    RankImbalanceModel* im = w->imbalanceModel();
    QCOMPARE(rowOf(*im, QStringLiteral("parameters"), RankImbalanceModel::Name), -1);
    const int emb = rowOf(*im, QStringLiteral("embedding table"), RankImbalanceModel::Name);
    QVERIFY(emb >= 0);
    QCOMPARE(im->index(emb, RankImbalanceModel::Figure).data().toString(), QStringLiteral("+1.00 GiB"));
    QVERIFY(rowOf(*im, QStringLiteral("attention softmax"), RankImbalanceModel::Name) >= 0);
    QCOMPARE(
        w->rankModel()->index(2, SnapshotRankModel::Capacity).data(RecordTableModel::SortRole).toLongLong(),
        qint64(80) << 30);
    // The pane still shows rank 2, now by the user's categories, and says so.
    RankDetailPane* pane = w->detailPane();
    QVERIFY(pane->headerLabel()->text().startsWith(QStringLiteral("Rank 2 ")));
    const SnapshotRankDetailModel* cats = pane->categoriesModel();
    QCOMPARE(cats->rowCount(), 4);  // gradients, embedding table, attention softmax, other
    const int e = rowOf(*cats, QStringLiteral("embedding table"));
    QVERIFY(e >= 0);
    QCOMPARE(cats->index(e, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("1.00 GiB"));
    QCOMPARE(cats->index(e, SnapshotRankDetailModel::Count).data().toString(), QStringLiteral("1"));
    const int soft = rowOf(*cats, QStringLiteral("attention softmax"));
    QCOMPARE(cats->index(soft, SnapshotRankDetailModel::Bytes).data().toString(), QStringLiteral("512 MiB"));
    QCOMPARE(cats->index(soft, SnapshotRankDetailModel::Count).data().toString(), QStringLiteral("3"));
    QCOMPARE(
        cats->index(rowOf(*cats, QStringLiteral("other")), SnapshotRankDetailModel::Bytes).data().toString(),
        QStringLiteral("16.1 MiB"));
    bool sourceNamed = false;
    for (const QLabel* l : pane->findChildren<QLabel*>())
      sourceNamed |=
          l->text() ==
          QStringLiteral("At the peak by category (rules of %1, then guessed from stacks):").arg(kRules);
    QVERIFY(sourceNamed);
    QVERIFY(w->categoriesMenu()->reloadAction()->isEnabled());
    QCOMPARE(CategoryRulesMenu::sessionRules(), kRules);
    shoot(*w, QStringLiteral("ranks_window_rank2_rules.png"));
    w->categoriesMenu()->builtInAction()->trigger();
    QVERIFY(applied.wait(60000));
    QVERIFY(rowOf(*w->imbalanceModel(), QStringLiteral("parameters"), RankImbalanceModel::Name) >= 0);
    QVERIFY(rowOf(*pane->categoriesModel(), QStringLiteral("parameters")) >= 0);
    QCOMPARE(CategoryRulesMenu::sessionRules(), QString());
    w->close();
  }

  // Categories > Load Category Rules… asks for the file in a dialog: cancelling it changes nothing, choosing
  // a rules file categorises the ranks by it (and its folder is where the next dialog starts).
  void loadActionAsksForTheRulesFile() {
    RanksWindow* w = openOomJob();
    QVERIFY(w);
    QSignalSpy applied(w, &RanksWindow::categoriesApplied);
    QSignalSpy asked(w->categoriesMenu(), &CategoryRulesMenu::applyRequested);
    FileDialogAnswer cancelled;
    answerNextFileDialog(&cancelled, QString());
    w->categoriesMenu()->loadAction()->trigger();
    QVERIFY(cancelled.seen);
    QCOMPARE(cancelled.title, QStringLiteral("Load Category Rules"));
    QCOMPARE(cancelled.filters, QStringList({QStringLiteral("Category rules (*.rules *.txt)"),
                                             QStringLiteral("All files (*)")}));
    QCOMPARE(asked.count(), 0);
    QVERIFY(rowOf(*w->imbalanceModel(), QStringLiteral("parameters"), RankImbalanceModel::Name) >= 0);
    FileDialogAnswer chosen;
    answerNextFileDialog(&chosen, kRules);
    w->categoriesMenu()->loadAction()->trigger();
    QVERIFY(chosen.seen);
    QVERIFY(chosen.accepted);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(QFileInfo(asked.at(0).at(0).toString()).canonicalFilePath(),
             QFileInfo(kRules).canonicalFilePath());
    QVERIFY(applied.wait(60000));
    QVERIFY(rowOf(*w->imbalanceModel(), QStringLiteral("embedding table"), RankImbalanceModel::Name) >= 0);
    QCOMPARE(w->categoriesMenu()->rulesPath(), asked.at(0).at(0).toString());
    w->close();
  }

  // A file that is not rules (a snapshot): the CLI's words (FILE: line 1: ...) in the status bar, and
  // nothing else changes.
  void badRulesChangeNothing() {
    RanksWindow* w = openOomJob();
    QVERIFY(w);
    QVERIFY(w->selectRank(2));
    const QString verdict = w->verdictLabel()->text();
    const int imbalanceRows = w->imbalanceModel()->rowCount();
    const auto before = w->result();
    QSignalSpy failed(w, &RanksWindow::categoryRulesFailed);
    QSignalSpy applied(w, &RanksWindow::categoriesApplied);
    w->applyCategoryRules(oomJob()[0]);
    QVERIFY(failed.wait(60000));
    QCOMPARE(applied.count(), 0);
    const QString status = w->statusLabel()->text();
    QVERIFY2(status.contains(oomJob()[0] + QStringLiteral(": line 1: holds a NUL byte")), qPrintable(status));
    QCOMPARE(w->verdictLabel()->text(), verdict);
    QCOMPARE(w->imbalanceModel()->rowCount(), imbalanceRows);
    QVERIFY(rowOf(*w->imbalanceModel(), QStringLiteral("parameters"), RankImbalanceModel::Name) >= 0);
    QCOMPARE(w->result(), before);
    QVERIFY(w->detailPane()->headerLabel()->text().startsWith(QStringLiteral("Rank 2 ")));
    QCOMPARE(w->detailPane()->categoriesModel()->rowCount(), 3);
    QCOMPARE(CategoryRulesMenu::sessionRules(), QString());
    w->close();
  }

  // Kineto traces have no stacks: the pane says so instead of empty tables, and the Categories menu is
  // disabled with the reason as its tooltip.
  void kinetoJobHasNoStacks() {
    QStringList traces;
    for (int r = 0; r < 3; ++r)
      traces << QStringLiteral(OOMSCOPE_TEST_DATA) +
                    QStringLiteral("/kineto_ranks/no_oom/rank%1.pt.trace.json.gz").arg(r);
    auto* w = RanksWindow::openFiles(traces);
    QSignalSpy loaded(w, &RanksWindow::loaded);
    QVERIFY(loaded.wait(60000));
    QCOMPARE(w->kinetoRankModel()->rowCount(), 3);
    RankDetailPane* pane = w->detailPane();
    QVERIFY(pane->messageLabel()->text().contains(
        QStringLiteral("a [memory] event records no stack or category")));
    QVERIFY(w->selectRank(1));
    QVERIFY(pane->messageLabel()->isVisible());
    QVERIFY(!pane->categoriesView()->isVisible());
    QVERIFY(pane->messageLabel()->text().contains(QStringLiteral("no stack or category")));
    QVERIFY(pane->headerLabel()->text().startsWith(QStringLiteral("Rank 1: rank1.pt.trace.json.gz")));
    CategoryRulesMenu* menu = w->categoriesMenu();
    for (QAction* a : {menu->loadAction(), menu->reloadAction(), menu->builtInAction()}) {
      QVERIFY(!a->isEnabled());
      QVERIFY2(a->toolTip().contains(QStringLiteral("no stacks")), qPrintable(a->toolTip()));
    }
    w->resize(1500, 760);
    shoot(*w, QStringLiteral("ranks_window_kineto_no_stacks.png"));
    w->close();
  }

  void cleanup() { CategoryRulesMenu::setSessionRules(QString()); }

 private:
  TempConfigHome m_config{QStringLiteral("tst_rank_detail")};
};

QTEST_MAIN(TestRankDetail)
#include "tst_rank_detail.moc"
