#include "ui/analysis/overview_page.h"

#include <QDir>
#include <QFileInfo>
#include <QFrame>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QTableView>
#include <QVBoxLayout>

#include "core/util/bytes.h"
#include "ui/models/capture_table_models.h"
#include "ui/models/table_filter_proxy.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

constexpr int kTileColumns = 4;
constexpr int kTileCount = 8;

QLabel* sectionTitle(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  QFont font = label->font();
  font.setBold(true);
  font.setPointSizeF(font.pointSizeF() * 1.1);
  label->setFont(font);
  return label;
}

QString count(qint64 n) { return QLocale().toString(n); }

// A small framed box: a big number, what it counts, and where the number comes from.
QFrame* makeTile(QWidget* parent) {
  auto* tile = new QFrame(parent);
  tile->setFrameShape(QFrame::StyledPanel);
  tile->setObjectName(QStringLiteral("statTile"));
  auto* layout = new QVBoxLayout(tile);
  layout->setContentsMargins(12, 8, 12, 8);
  layout->setSpacing(2);
  auto* value = new QLabel(tile);
  value->setObjectName(QStringLiteral("value"));
  QFont font = value->font();
  font.setPointSizeF(font.pointSizeF() * 1.6);
  font.setBold(true);
  value->setFont(font);
  auto* caption = new QLabel(tile);
  caption->setObjectName(QStringLiteral("caption"));
  auto* tag = new QLabel(tile);
  tag->setObjectName(QStringLiteral("tag"));
  tag->setForegroundRole(QPalette::PlaceholderText);
  QFont small = tag->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  tag->setFont(small);
  layout->addWidget(value);
  layout->addWidget(caption);
  layout->addWidget(tag);
  return tile;
}

}  // namespace

OverviewPage::OverviewPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("overviewPage"));
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(20, 16, 20, 16);
  layout->setSpacing(10);

  m_title = new QLabel(content);
  QFont titleFont = m_title->font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.4);
  titleFont.setBold(true);
  m_title->setFont(titleFont);
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_title->setTextFormat(Qt::PlainText);  // names from the file are never markup
  m_subtitle = new QLabel(content);
  m_subtitle->setWordWrap(true);
  m_subtitle->setForegroundRole(QPalette::PlaceholderText);
  m_subtitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_subtitle->setTextFormat(Qt::PlainText);
  m_headline = new QLabel(content);
  m_headline->setObjectName(QStringLiteral("headline"));
  m_headline->setWordWrap(true);
  m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_headline->setTextFormat(Qt::PlainText);
  QFont headlineFont = m_headline->font();
  headlineFont.setPointSizeF(headlineFont.pointSizeF() * 1.1);
  m_headline->setFont(headlineFont);

  m_tiles = new QGridLayout;
  m_tiles->setSpacing(8);
  for (int i = 0; i < kTileCount; ++i)
    m_tiles->addWidget(makeTile(content), i / kTileColumns, i % kTileColumns);

  m_planes = new PlaneTableModel(this);
  auto* proxy = new TableFilterProxy(this);
  proxy->setSourceModel(m_planes);
  m_planesView = new QTableView(content);
  m_planesView->setObjectName(QStringLiteral("planesView"));
  m_planesView->setModel(proxy);
  m_planesView->setSortingEnabled(true);
  m_planesView->sortByColumn(PlaneTableModel::Events, Qt::DescendingOrder);
  m_planesView->verticalHeader()->hide();
  m_planesView->verticalHeader()->setDefaultSectionSize(m_planesView->fontMetrics().height() + 8);
  m_planesView->setAlternatingRowColors(true);
  m_planesView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_planesView->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_planesView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_planesView->horizontalHeader()->setSectionResizeMode(PlaneTableModel::Name, QHeaderView::Stretch);
  m_planesView->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);

  m_problemsTitle = sectionTitle(tr("Problems reported in the file"), content);
  m_problems = new QLabel(content);
  m_problems->setWordWrap(true);
  m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_problems->setTextFormat(Qt::PlainText);

  layout->addWidget(m_title);
  layout->addWidget(m_subtitle);
  layout->addSpacing(4);
  layout->addWidget(m_headline);
  layout->addSpacing(6);
  layout->addLayout(m_tiles);
  layout->addSpacing(6);
  layout->addWidget(sectionTitle(tr("Planes"), content));
  layout->addWidget(m_planesView);
  layout->addWidget(m_problemsTitle);
  layout->addWidget(m_problems);
  layout->addStretch(1);

  auto* scroll = new QScrollArea(this);
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);

  clear();
}

void OverviewPage::setTile(int index, const QString& value, const QString& caption, const QString& tag,
                           const QString& tooltip) {
  auto* tile = m_tiles->itemAt(index)->widget();
  tile->findChild<QLabel*>(QStringLiteral("value"))->setText(value);
  tile->findChild<QLabel*>(QStringLiteral("caption"))->setText(caption);
  tile->findChild<QLabel*>(QStringLiteral("tag"))->setText(tag);
  tile->setToolTip(plainToolTip(tooltip));
}

void OverviewPage::setSummary(const CaptureSummary& s, std::vector<PlaneRow> planes) {
  const QFileInfo info(s.path);
  m_title->setText(info.fileName());
  const QString hosts = s.hosts.isEmpty()     ? tr("no host name recorded")
                        : s.hosts.size() == 1 ? tr("host %1").arg(s.hosts.first())
                                              : tr("hosts %1").arg(s.hosts.join(QStringLiteral(", ")));
  m_subtitle->setText(tr("%1 \u00b7 %2 \u00b7 %3")
                          .arg(safeText(QDir::toNativeSeparators(info.absoluteFilePath())),
                               QString::fromStdString(format_bytes(std::uint64_t(s.fileSize))), hosts));
  m_headline->setText(describeSummary(s));

  const QString read = tr("read from the file");
  const QString counted = tr("counted from the file");
  setTile(0, count(s.moduleCount), tr("modules (memory plans)"), read,
          tr("HloProtos in /host:metadata, one per compiled XLA module."));
  setTile(1, count(s.allocatorCount), tr("allocators"), counted,
          tr("Distinct allocator_name values of the MemoryAllocation events."));
  setTile(2, count(s.allocations), tr("allocations"), counted,
          tr("MemoryAllocation events over all allocators."));
  setTile(3, count(s.deallocations), tr("deallocations"), counted,
          tr("MemoryDeallocation events over all allocators. Fewer than the allocations means buffers were "
             "still alive when the capture stopped."));
  setTile(4, count(s.retryCount), tr("AllocatorRetry waits"), counted,
          s.retryCount > 0 ? tr("Allocations that waited for memory to be freed, %1 ms in total: a sign of "
                                "memory pressure.")
                                 .arg(QLocale().toString(double(s.retryTotalPs) / 1e9, 'f', 2))
                           : tr("No allocation had to wait for memory to be freed."));
  setTile(5, count(s.executionCount), tr("executions"),
          s.executionCount > 0 ? tr("counted: %1").arg(s.executionSource) : counted,
          tr("Program executions seen on the host or device timelines."));
  setTile(6, count(s.planeCount), tr("planes"), read, tr("XPlanes in the file: hosts, devices, metadata."));
  setTile(7, count(s.eventCount), tr("events"), counted, tr("Trace events on all planes."));

  m_planes->setRows(std::move(planes));
  // Show every plane without an inner scroll bar: the page itself scrolls.
  m_planesView->resizeColumnsToContents();
  m_planesView->horizontalHeader()->setSectionResizeMode(PlaneTableModel::Name, QHeaderView::Stretch);
  const int rows = m_planes->rowCount();
  const int height = m_planesView->horizontalHeader()->sizeHint().height() + 2 * m_planesView->frameWidth() +
                     rows * m_planesView->verticalHeader()->defaultSectionSize();
  m_planesView->setFixedHeight(height);

  m_problemsTitle->setVisible(!s.problems.isEmpty());
  m_problems->setVisible(!s.problems.isEmpty());
  m_problems->setText(s.problems.join(QLatin1Char('\n')));
}

void OverviewPage::clear() {
  m_title->clear();
  m_subtitle->clear();
  m_headline->clear();
  for (int i = 0; i < kTileCount; ++i) setTile(i, {}, {}, {}, {});
  m_planes->setRows({});
  m_problemsTitle->hide();
  m_problems->hide();
}

QString OverviewPage::headline() const { return m_headline->text(); }

}  // namespace oomscope::ui
