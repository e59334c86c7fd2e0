#include "ui/snapshot/rank_detail_pane.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/util/bytes.h"
#include "ui/models/record_table_model.h"
#include "ui/session/safe_text_qt.h"
#include "ui/snapshot/snapshot_rank_detail_model.h"
#include "ui/widgets/sorted_table_view.h"

namespace oomscope::ui {

namespace {

QString bytes(std::int64_t b) { return QString::fromStdString(format_bytes(b)); }

}  // namespace

QLabel* RankDetailPane::plainLabel() {
  auto* l = new QLabel;
  l->setTextFormat(Qt::PlainText);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

RankDetailPane::RankDetailPane(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout;
  m_header = plainLabel();
  QFont bold = m_header->font();
  bold.setBold(true);
  m_header->setFont(bold);
  m_open = new QPushButton(tr("Open Snapshot"));
  m_open->setToolTip(tr("Opens the selected rank's file in a snapshot window (or double-click its row)"));
  connect(m_open, &QPushButton::clicked, this, [this] {
    if (!m_path.isEmpty()) emit openRequested(m_path);
  });
  top->addWidget(m_header, 1);
  top->addWidget(m_open, 0, Qt::AlignTop);
  m_message = plainLabel();
  m_message->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  m_categories = new SnapshotRankDetailModel(SnapshotRankDetailModel::Part::Categories, this);
  m_sites = new SnapshotRankDetailModel(SnapshotRankDetailModel::Part::Sites, this);
  m_categoriesView = new SortedTableView(m_categories, nullptr, RecordTableModel::SortRole);
  m_sitesView = new SortedTableView(m_sites, nullptr, RecordTableModel::SortRole);
  // The rule that gave each category is a sentence: it wraps in the last column, which stretches, and the
  // rows grow to hold it whenever the column's width changes.
  m_categoriesView->setWordWrap(true);
  connect(m_categoriesView->horizontalHeader(), &QHeaderView::sectionResized, m_categoriesView,
          [this](int column) {
            if (column == SnapshotRankDetailModel::Rule) m_categoriesView->resizeRowsToContents();
          });
  // Bytes first, as the CLI prints a site's line: the long site text is last and stretches.
  m_sitesView->horizontalHeader()->moveSection(SnapshotRankDetailModel::Bytes, SnapshotRankDetailModel::Name);
  m_categoriesTitle = plainLabel();
  m_sitesTitle = plainLabel();
  auto* categoriesBox = new QWidget;
  auto* categoriesLayout = new QVBoxLayout(categoriesBox);
  categoriesLayout->setContentsMargins(0, 0, 0, 0);
  categoriesLayout->addWidget(m_categoriesTitle);
  categoriesLayout->addWidget(m_categoriesView, 1);
  auto* sitesBox = new QWidget;
  auto* sitesLayout = new QVBoxLayout(sitesBox);
  sitesLayout->setContentsMargins(0, 0, 0, 0);
  sitesLayout->addWidget(m_sitesTitle);
  sitesLayout->addWidget(m_sitesView, 1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(categoriesBox);
  split->addWidget(sitesBox);
  m_tables = split;
  layout->addLayout(top);
  layout->addWidget(m_message, 1);
  layout->addWidget(m_tables, 1);
  showNothing();
}

void RankDetailPane::showMessage(const QString& message) {
  m_categories->setRows({});
  m_sites->setRows({});
  m_tables->hide();
  m_message->setText(message);
  m_message->show();
  m_open->setEnabled(!m_path.isEmpty());
}

void RankDetailPane::showNothing() {
  m_path.clear();
  m_header->setText(tr("What a rank holds at its peak"));
  showMessage(tr("Select a rank to see what it holds at its peak (double-click to open its snapshot)."));
}

void RankDetailPane::showKineto(std::optional<std::int64_t> rank, const QString& path) {
  m_path = path;
  m_header->setText(rank ? tr("Rank %1: %2").arg(*rank).arg(safeText(QFileInfo(path).fileName()))
                         : tr("What a rank holds at its peak"));
  showMessage(
      tr("These are Kineto traces: a [memory] event records no stack or category, so what a rank holds at "
         "its peak cannot be told by category or by allocation site. Its peaks are in the ranks table; Open "
         "Snapshot shows the trace's memory over time. A PyTorch allocator snapshot "
         "(torch.cuda.memory._dump_snapshot) of each rank has the stacks."));
}

void RankDetailPane::showRank(const snapshot::RankComparison& c, std::size_t index) {
  const snapshot::RankFigures& f = c.ranks.at(index);
  m_path = QString::fromStdString(f.path);
  m_header->setText(
      // named_by already names the file (or the folder that gave the rank); the whole path is the tooltip.
      tr("Rank %1 (%2, device %3): at its peak %4 allocated, %5 reserved")
          .arg(f.rank)
          .arg(safeText(f.named_by))
          .arg(f.device)
          .arg(bytes(f.peak_allocated), bytes(f.peak_reserved)));
  m_header->setToolTip(plainToolTip(m_path));
  m_categoriesTitle->setText(tr("At the peak by category (%1):")
                                 .arg(safeText(snapshot::rank_categories_source(c)) +
                                      (c.rules_path.empty() ? tr(" by the built-in rules") : QString())));
  m_sitesTitle->setText(
      tr("At the peak by allocation site (innermost user frame), %n live:", nullptr, int(f.sites.size())));
  m_categories->setRank(f);
  m_sites->setRank(f);
  m_message->hide();
  m_tables->show();
  m_open->setEnabled(true);
  for (int column :
       {SnapshotRankDetailModel::Name, SnapshotRankDetailModel::Bytes, SnapshotRankDetailModel::Count})
    m_categoriesView->resizeColumnToContents(column);
  m_categoriesView->resizeRowsToContents();
  m_sitesView->resizeColumnsToContents();
}

}  // namespace oomscope::ui
