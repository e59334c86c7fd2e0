#include "ui/snapshot/ranks_window.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

#include "core/snapshot/file_kind.h"
#include "core/snapshot/snapshot_reader.h"
#include "ui/models/snapshot_rank_imbalance_model.h"
#include "ui/models/snapshot_rank_model.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/snapshot/snapshot_window.h"

namespace oomscope::ui {

namespace {

QTableView* tableOver(QAbstractItemModel* model, QWidget* parent) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(RecordTableModel::SortRole);
  auto* view = new QTableView;
  view->setModel(proxy);
  view->setSortingEnabled(true);
  view->sortByColumn(-1, Qt::AscendingOrder);  // the model's order (by rank) until a header is clicked
  view->horizontalHeader()->setStretchLastSection(true);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->verticalHeader()->hide();
  return view;
}

QLabel* textLabel() {
  auto* l = new QLabel;
  l->setTextFormat(Qt::PlainText);  // names from files: never markup
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

bool isSnapshot(const QString& path) {
  return snapshot::detect_file_kind(path.toStdString()).kind == snapshot::FileKind::TorchSnapshot;
}

}  // namespace

std::shared_ptr<const RankJobResult> loadRankJob(const QStringList& paths, ProgressSink& progress,
                                                 std::stop_token stop) {
  auto result = std::make_shared<RankJobResult>();
  result->paths = paths;
  std::vector<std::shared_ptr<const snapshot::Snapshot>> snaps;
  for (qsizetype i = 0; i < paths.size(); ++i) {
    const std::string path = paths[i].toStdString();
    progress.report(double(i) / double(paths.size()), "reading snapshots");
    try {
      const snapshot::FileKindInfo kind = snapshot::detect_file_kind(path);
      if (kind.kind != snapshot::FileKind::TorchSnapshot && kind.kind != snapshot::FileKind::XSpace)
        throw Error(ErrorKind::NotACapture, path,
                    "not a PyTorch snapshot, though named like a rank's: it looks like " + kind.looks_like);
      snaps.push_back(snapshot::read_snapshot(path, progress, stop));
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      result->failed.push_back(e.what());
    }
  }
  const snapshot::RankGrouping grouping = snapshot::group_ranks(snaps);  // throws on two claims of a rank
  result->is_job = grouping.is_job;
  result->not_a_job = grouping.not_a_job;
  if (grouping.is_job) result->comparison = snapshot::compare_ranks(snaps, grouping, std::nullopt, 10);
  progress.report(1.0, "compared");
  return result;
}

RanksWindow::RanksWindow(QWidget* parent) : QMainWindow(parent) {
  setAttribute(Qt::WA_DeleteOnClose);
  resize(1280, 760);
  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  m_verdict = textLabel();
  QFont bold = m_verdict->font();
  bold.setBold(true);
  m_verdict->setFont(bold);
  m_evidence = textLabel();
  m_ranks = new SnapshotRankModel(this);
  m_imbalance = new RankImbalanceModel(this);
  m_rankView = tableOver(m_ranks, this);
  m_imbalanceView = tableOver(m_imbalance, this);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_rankView);
  split->addWidget(m_imbalanceView);
  layout->addWidget(m_verdict);
  layout->addWidget(m_evidence);
  layout->addWidget(split, 1);
  setCentralWidget(central);
  m_status = new QLabel;
  m_status->setTextFormat(Qt::PlainText);
  m_progress = new QProgressBar;
  m_progress->setRange(0, 100);
  m_progress->setMaximumWidth(200);
  m_progress->hide();
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->hide();
  connect(m_cancel, &QPushButton::clicked, this, &RanksWindow::cancel);
  statusBar()->addWidget(m_status, 1);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  m_load = new JobTracker(this);
  connect(m_load, &JobTracker::progress, m_progress,
          [bar = m_progress](double fraction, const QString&) { bar->setValue(int(fraction * 100)); });
  connect(m_load, &JobTracker::failed, this, [this](const JobError& e) { loadEnded(e.text()); });
  connect(m_load, &JobTracker::cancelled, this, [this] { loadEnded(tr("Loading was cancelled.")); });
}

bool RanksWindow::openIfSnapshots(const QStringList& paths) {
  QStringList files;
  for (const QString& p : paths)
    if (!p.isEmpty()) files << p;
  if (files.size() < 2) return false;
  for (const QString& f : files)
    if (QFileInfo(f).isDir() || !isSnapshot(f)) return false;
  openFiles(files);
  return true;
}

bool RanksWindow::openIfSnapshotFolder(const QString& dir) {
  if (!QFileInfo(dir).isDir()) return false;
  QStringList snapshots;
  QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    if (f.endsWith(QStringLiteral(".xplane.pb")) || f.endsWith(QStringLiteral(".xplane.pb.gz"))) return false;
    if (f.endsWith(QStringLiteral(".pickle")) || f.endsWith(QStringLiteral(".pkl")) ||
        f.endsWith(QStringLiteral(".pickle.gz")))
      snapshots << f;
  }
  if (snapshots.isEmpty()) return false;
  snapshots.sort();
  openFiles(snapshots);
  return true;
}

RanksWindow* RanksWindow::openFiles(const QStringList& paths) {
  auto* window = new RanksWindow;
  window->show();
  window->load(paths);
  return window;
}

void RanksWindow::load(const QStringList& paths) {
  setWindowTitle(tr("Ranks of %1 \u2014 oomscope").arg(QFileInfo(paths.value(0)).dir().dirName()));
  m_status->setText(tr("Reading %n snapshot(s)\u2026", nullptr, int(paths.size())));
  m_progress->setValue(0);
  m_progress->show();
  m_cancel->show();
  m_load->start<std::shared_ptr<const RankJobResult>>(
      paths.value(0),
      [paths](ProgressSink& progress, std::stop_token stop) {
        return loadRankJob(paths, progress, std::move(stop));
      },
      [this](const std::shared_ptr<const RankJobResult>& r) {
        m_progress->hide();
        m_cancel->hide();
        setResult(r);
        emit loaded();
      });
}

void RanksWindow::cancel() { m_load->cancel(); }

void RanksWindow::loadEnded(const QString& message) {
  m_progress->hide();
  m_cancel->hide();
  m_status->setText(message);
  m_verdict->setText(message);
  emit failed(message);
}

void RanksWindow::setResult(std::shared_ptr<const RankJobResult> result) {
  m_result = std::move(result);
  const RankJobResult& r = *m_result;
  QString failures;
  for (const std::string& f : r.failed) failures += QStringLiteral("\nnot read: ") + safeText(f);
  if (!r.is_job) {
    m_verdict->setText(tr("These files are not the ranks of one job: %1. Each opens in a window of its own.")
                           .arg(safeText(r.not_a_job)));
    m_evidence->setText(failures.trimmed());
    m_ranks->setRows({});
    m_imbalance->setRows({});
    m_status->setText(tr("Not one job"));
    for (const QString& p : r.paths)
      if (isSnapshot(p)) SnapshotWindow::openFile(p);
    return;
  }
  const snapshot::RankComparison& c = r.comparison;
  QString verdict = tr("Verdict (%1): rank %2")
                        .arg(QString::fromUtf8(snapshot::to_string(c.verdict.kind)))
                        .arg(c.verdict.rank);
  for (const std::string& s : c.verdict.sentences) verdict += QStringLiteral("\n") + safeText(s);
  m_verdict->setText(verdict);
  QString evidence = tr("Evidence:");
  for (const std::string& e : c.grouping.evidence) evidence += QStringLiteral("\n  ") + safeText(e);
  for (const snapshot::ExcludedFile& x : c.grouping.excluded)
    evidence += QStringLiteral("\nleft out: ") + safeText(x.path + ": " + x.reason);
  m_evidence->setText(evidence + failures);
  m_ranks->setRows(snapshotRankRows(c));
  m_imbalance->setRows(rankImbalanceRows(c));
  m_rankView->resizeColumnsToContents();
  m_imbalanceView->resizeColumnsToContents();
  m_status->setText(tr("%n rank(s) of one job", nullptr, int(c.ranks.size())));
}

}  // namespace oomscope::ui
