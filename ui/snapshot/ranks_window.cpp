#include "ui/snapshot/ranks_window.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "core/snapshot/file_kind.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/bytes.h"
#include "ui/models/kineto_rank_model.h"
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

bool isTrace(const QString& path) {
  return snapshot::detect_file_kind(path.toStdString()).kind == snapshot::FileKind::ChromeTrace;
}

void compare(RankJobResult& r) {
  if (!r.traces.empty() || r.kineto) {
    r.kineto = snapshot::compare_kineto_ranks(r.traces, r.capacity);  // throws on two claims of a rank
    r.is_job = r.kineto->is_job;
    r.not_a_job = r.kineto->not_a_job;
    return;
  }
  r.is_job = r.grouping.is_job;
  r.not_a_job = r.grouping.not_a_job;
  if (r.is_job) r.comparison = snapshot::compare_ranks(r.snaps, r.grouping, r.capacity, 10);
}

}  // namespace

std::shared_ptr<const RankJobResult> loadRankJob(const QStringList& paths, ProgressSink& progress,
                                                 const std::stop_token& stop,
                                                 std::optional<std::int64_t> capacity) {
  auto result = std::make_shared<RankJobResult>();
  result->paths = paths;
  result->capacity = capacity;
  const bool traces = !paths.isEmpty() && std::all_of(paths.begin(), paths.end(), isTrace);
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
                                                      std::optional<std::int64_t> capacity) {
  auto result = std::make_shared<RankJobResult>(r);
  result->capacity = capacity;
  compare(*result);
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
  m_kinetoRanks = new KinetoRankModel(this);
  m_imbalance = new RankImbalanceModel(this);
  m_rankView = tableOver(m_ranks, this);
  m_rankProxy = qobject_cast<QSortFilterProxyModel*>(m_rankView->model());
  m_imbalanceView = tableOver(m_imbalance, this);
  auto* capacityRow = new QHBoxLayout;
  capacityRow->addWidget(new QLabel(tr("Capacity of every rank's device:")));
  m_capacity = new QLineEdit;
  m_capacity->setPlaceholderText(tr("each file's own (e.g. 80 GiB)"));
  m_capacity->setToolTip(
      tr("As the CLI's --capacity: a byte size (80 GiB, 79.6G, 85899345920) for every rank's device; empty "
         "for each file's own. The verdict is computed again."));
  m_capacity->setMaximumWidth(220);
  m_applyCapacity = new QPushButton(tr("Apply"));
  m_applyCapacity->setEnabled(false);
  capacityRow->addWidget(m_capacity);
  capacityRow->addWidget(m_applyCapacity);
  capacityRow->addStretch(1);
  connect(m_applyCapacity, &QPushButton::clicked, this, [this] { applyCapacity(m_capacity->text()); });
  connect(m_capacity, &QLineEdit::returnPressed, this, [this] { applyCapacity(m_capacity->text()); });
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_rankView);
  split->addWidget(m_imbalanceView);
  layout->addLayout(capacityRow);
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
    if (QFileInfo(f).isDir()) return false;
  if (!std::all_of(files.begin(), files.end(), isSnapshot) &&
      !std::all_of(files.begin(), files.end(), isTrace))
    return false;
  openFiles(files);
  return true;
}

bool RanksWindow::openIfSnapshotFolder(const QString& dir) {
  if (!QFileInfo(dir).isDir()) return false;
  QStringList snapshots, traces;
  QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    if (f.endsWith(QStringLiteral(".xplane.pb")) || f.endsWith(QStringLiteral(".xplane.pb.gz"))) return false;
    if (f.endsWith(QStringLiteral(".pickle")) || f.endsWith(QStringLiteral(".pkl")) ||
        f.endsWith(QStringLiteral(".pickle.gz")))
      snapshots << f;
    if (f.endsWith(QStringLiteral(".json")) || f.endsWith(QStringLiteral(".json.gz"))) traces << f;
  }
  if (snapshots.isEmpty()) {  // per-rank Kineto traces: at least two, all of them traces by content
    if (traces.size() < 2 || !std::all_of(traces.begin(), traces.end(), isTrace)) return false;
    snapshots = traces;
  }
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
  m_status->setText(tr("Reading %n file(s)\u2026", nullptr, int(paths.size())));
  m_progress->setValue(0);
  m_progress->show();
  m_cancel->show();
  m_load->start<std::shared_ptr<const RankJobResult>>(
      paths.value(0),
      [paths](ProgressSink& progress, const std::stop_token& stop) {
        return loadRankJob(paths, progress, stop);
      },
      [this](const std::shared_ptr<const RankJobResult>& r) {
        m_progress->hide();
        m_cancel->hide();
        setResult(r);
        emit loaded();
      });
}

void RanksWindow::cancel() { m_load->cancel(); }

void RanksWindow::applyCapacity(const QString& text) {
  if (!m_result) return;
  std::optional<std::int64_t> capacity;
  if (!text.trimmed().isEmpty()) {
    const ParsedBytes parsed = parse_byte_size(text.trimmed().toStdString());
    if (!parsed || parsed.bytes <= 0) {
      m_status->setText(parsed ? tr("The capacity must be more than 0 bytes.")
                               : tr("Capacity: %1").arg(safeText(parsed.error)));
      return;
    }
    capacity = parsed.bytes;
  }
  m_status->setText(tr("Comparing the ranks again\u2026"));
  m_applyCapacity->setEnabled(false);
  m_load->start<std::shared_ptr<const RankJobResult>>(
      m_result->paths.value(0),
      [from = m_result, capacity](ProgressSink&, const std::stop_token&) {
        return recomputeRankJob(*from, capacity);
      },
      [this](const std::shared_ptr<const RankJobResult>& r) {
        setResult(r);
        emit loaded();
      });
}

void RanksWindow::loadEnded(const QString& message) {
  m_applyCapacity->setEnabled(m_result && m_result->is_job);
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
    m_kinetoRanks->setRows({});
    m_imbalance->setRows({});
    m_applyCapacity->setEnabled(false);
    m_status->setText(tr("Not one job"));
    for (const QString& p : r.paths)
      if (isSnapshot(p) || isTrace(p)) SnapshotWindow::openFile(p);
    return;
  }
  m_applyCapacity->setEnabled(true);
  if (r.kineto) {
    showKineto(*r.kineto, failures);
    return;
  }
  m_rankProxy->setSourceModel(m_ranks);
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

void RanksWindow::showKineto(const snapshot::KinetoRankJob& j, const QString& failures) {
  QString verdict = tr("Verdict (%1): rank %2")
                        .arg(QString::fromUtf8(snapshot::to_string(j.verdict.kind)))
                        .arg(j.verdict.rank);
  for (const std::string& s : j.verdict.sentences) verdict += QStringLiteral("\n") + safeText(s);
  m_verdict->setText(verdict);
  QString evidence = tr("Kineto traces. Evidence:");
  for (const std::string& e : j.evidence) evidence += QStringLiteral("\n  ") + safeText(e);
  for (const snapshot::ExcludedFile& x : j.excluded)
    evidence += QStringLiteral("\nleft out: ") + safeText(x.path + ": " + x.reason);
  m_evidence->setText(evidence + failures);
  m_ranks->setRows({});
  m_kinetoRanks->setRows(kinetoRankRows(j));
  m_rankProxy->setSourceModel(m_kinetoRanks);
  m_imbalance->setRows(rankImbalanceRows(j));
  m_rankView->resizeColumnsToContents();
  m_imbalanceView->resizeColumnsToContents();
  m_status->setText(tr("%n rank(s) of one job (Kineto traces)", nullptr, int(j.ranks.size())));
}

}  // namespace oomscope::ui
