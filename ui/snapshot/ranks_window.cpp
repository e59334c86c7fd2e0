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

#include "core/snapshot/category_rules.h"
#include "core/util/bytes.h"
#include "ui/models/kineto_rank_model.h"
#include "ui/models/record_table_model.h"
#include "ui/models/snapshot_rank_imbalance_model.h"
#include "ui/models/snapshot_rank_model.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/snapshot/category_rules_menu.h"
#include "ui/snapshot/rank_detail_pane.h"
#include "ui/snapshot/snapshot_window.h"
#include "ui/widgets/sorted_table_view.h"

namespace oomscope::ui {

RanksWindow::RanksWindow(QWidget* parent) : QMainWindow(parent) {
  setAttribute(Qt::WA_DeleteOnClose);
  resize(1280, 760);
  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  m_verdict = RankDetailPane::plainLabel();
  QFont bold = m_verdict->font();
  bold.setBold(true);
  m_verdict->setFont(bold);
  m_evidence = RankDetailPane::plainLabel();
  m_ranks = new SnapshotRankModel(this);
  m_kinetoRanks = new KinetoRankModel(this);
  m_imbalance = new RankImbalanceModel(this);
  auto* rankView = new SortedTableView(m_ranks, nullptr, RecordTableModel::SortRole);
  rankView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_rankProxy = rankView->proxy();
  m_rankView = rankView;
  m_imbalanceView = new SortedTableView(m_imbalance, nullptr, RecordTableModel::SortRole);
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
  m_detail = new RankDetailPane;
  auto* below = new QSplitter(Qt::Horizontal);
  below->addWidget(m_imbalanceView);
  below->addWidget(m_detail);
  below->setStretchFactor(0, 1);
  below->setStretchFactor(1, 1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_rankView);
  split->addWidget(below);
  split->setStretchFactor(0, 0);  // a job has few ranks: the room goes to what they hold
  split->setStretchFactor(1, 1);
  split->setSizes({170, 560});
  below->setSizes({760, 720});
  connect(m_rankView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &RanksWindow::showSelected);
  connect(m_rankView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const QModelIndex source = m_rankProxy->mapToSource(index);
    if (!source.isValid()) return;
    const auto row = std::size_t(source.row());
    if (m_rankProxy->sourceModel() == m_ranks && row < m_ranks->rows().size())
      emit openRequested(m_ranks->rows()[row].path);
    else if (m_rankProxy->sourceModel() == m_kinetoRanks && row < m_kinetoRanks->rows().size())
      emit openRequested(m_kinetoRanks->rows()[row].path);
  });
  connect(m_detail, &RankDetailPane::openRequested, this, &RanksWindow::openRequested);
  connect(this, &RanksWindow::openRequested, this,
          [](const QString& path) { SnapshotWindow::openFile(path); });
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
  connect(m_load, &JobTracker::failed, this, [this](const JobError& e) {
    if (!m_rulesJob) return loadEnded(e.text());
    const QString message = tr("Category rules not applied: %1").arg(safeText(e.text()));
    m_status->setText(message);
    updateRulesMenu();
    emit categoryRulesFailed(message);
  });
  connect(m_load, &JobTracker::cancelled, this, [this] {
    if (!m_rulesJob) return loadEnded(tr("Loading was cancelled."));
    m_status->setText(tr("The categories were not applied: cancelled."));
    updateRulesMenu();
  });
  m_rulesMenu = new CategoryRulesMenu(this);
  connect(m_rulesMenu, &CategoryRulesMenu::applyRequested, this, &RanksWindow::applyCategoryRules);
  updateRulesMenu();
}

bool RanksWindow::openIfSnapshots(const QStringList& paths) {
  QStringList files;
  for (const QString& p : paths)
    if (!p.isEmpty()) files << p;
  if (files.size() < 2) return false;
  for (const QString& f : files)
    if (QFileInfo(f).isDir()) return false;
  if (!std::all_of(files.begin(), files.end(), isTorchSnapshotFile) &&
      !std::all_of(files.begin(), files.end(), isChromeTraceFile))
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
    if (traces.size() < 2 || !std::all_of(traces.begin(), traces.end(), isChromeTraceFile)) return false;
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
  m_rulesJob = false;
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
        // The session's rules file (a snapshot window's or another Ranks window's) categorises these too.
        if (r->is_job && !r->kineto && !CategoryRulesMenu::sessionRules().isEmpty())
          applyCategoryRules(CategoryRulesMenu::sessionRules());
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
  m_rulesJob = false;
  m_load->start<std::shared_ptr<const RankJobResult>>(
      m_result->paths.value(0),
      [from = m_result, capacity](ProgressSink&, const std::stop_token&) {
        return recomputeRankJob(*from, capacity, from->rules);
      },
      [this](const std::shared_ptr<const RankJobResult>& r) {
        setResult(r);
        emit loaded();
      });
}

void RanksWindow::applyCategoryRules(const QString& path) {
  if (!m_result || !m_result->is_job || m_result->kineto) {
    const QString message =
        tr("Category rules apply to a job of PyTorch allocator snapshots; this window "
           "holds none.");
    m_status->setText(message);
    emit categoryRulesFailed(message);
    return;
  }
  m_status->setText(path.isEmpty()
                        ? tr("Comparing the ranks again with the built-in categories\u2026")
                        : tr("Reading %1 and comparing the ranks again\u2026").arg(safeText(path)));
  m_rulesJob = true;
  m_load->start<std::shared_ptr<const RankJobResult>>(
      path.isEmpty() ? tr("the built-in categories") : path,
      [from = m_result, file = path.toStdString()](ProgressSink&, const std::stop_token&) {
        std::shared_ptr<const snapshot::CategoryRules> rules;
        if (!file.empty())
          rules = std::make_shared<const snapshot::CategoryRules>(snapshot::CategoryRules::read(file));
        return recomputeRankJob(*from, from->capacity, std::move(rules));
      },
      [this, path](const std::shared_ptr<const RankJobResult>& r) {
        CategoryRulesMenu::setSessionRules(path);
        setResult(r);
        emit categoriesApplied();
      });
}

void RanksWindow::updateRulesMenu() {
  const bool snapshots = m_result && m_result->is_job && !m_result->kineto;
  const QString rules =
      snapshots && m_result->rules ? QString::fromStdString(m_result->rules->path()) : QString();
  m_rulesMenu->setState(snapshots, rules,
                        m_result && m_result->kineto
                            ? tr("Kineto traces record no stacks: a [memory] event has no stack or category "
                                 "for rules to match.")
                            : tr("Category rules apply to a job of PyTorch allocator snapshots."));
}

bool RanksWindow::selectRank(std::int64_t rank) {
  QAbstractItemModel* source = m_rankProxy->sourceModel();
  for (int row = 0; row < source->rowCount(); ++row) {
    const bool match = source == m_ranks ? m_ranks->rows()[std::size_t(row)].rank == rank
                                         : m_kinetoRanks->rows()[std::size_t(row)].rank == rank;
    if (!match) continue;
    m_rankView->setCurrentIndex(m_rankProxy->mapFromSource(source->index(row, 0)));
    m_rankView->selectRow(m_rankView->currentIndex().row());
    return true;
  }
  return false;
}

void RanksWindow::showSelected() {
  const QModelIndex source = m_rankProxy->mapToSource(m_rankView->currentIndex());
  const bool kineto = m_result && m_result->is_job && m_result->kineto;
  if (kineto) {
    if (!source.isValid() || std::size_t(source.row()) >= m_kinetoRanks->rows().size())
      return m_detail->showKineto(std::nullopt, QString());
    const KinetoRankRow& k = m_kinetoRanks->rows()[std::size_t(source.row())];
    return m_detail->showKineto(k.rank, k.path);
  }
  if (!m_result || !m_result->is_job || !source.isValid() ||
      std::size_t(source.row()) >= m_result->comparison.ranks.size())
    return m_detail->showNothing();
  m_detail->showRank(m_result->comparison, std::size_t(source.row()));  // rows in the order of c.ranks
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
  std::optional<std::int64_t> selected;  // kept across a new comparison of the same files
  if (const QModelIndex i = m_rankProxy->mapToSource(m_rankView->currentIndex()); i.isValid()) {
    if (m_rankProxy->sourceModel() == m_ranks && std::size_t(i.row()) < m_ranks->rows().size())
      selected = m_ranks->rows()[std::size_t(i.row())].rank;
    if (m_rankProxy->sourceModel() == m_kinetoRanks && std::size_t(i.row()) < m_kinetoRanks->rows().size())
      selected = m_kinetoRanks->rows()[std::size_t(i.row())].rank;
  }
  m_result = std::move(result);
  showResult();
  updateRulesMenu();
  if (!selected || !selectRank(*selected)) showSelected();
}

void RanksWindow::showResult() {
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
      if (isTorchSnapshotFile(p) || isChromeTraceFile(p)) SnapshotWindow::openFile(p);
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
  // A site's name can be long: elided (its tooltip is whole), so the figures beside it stay in view.
  constexpr int kNameWidth = 280;
  if (m_imbalanceView->columnWidth(RankImbalanceModel::Name) > kNameWidth)
    m_imbalanceView->setColumnWidth(RankImbalanceModel::Name, kNameWidth);
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
