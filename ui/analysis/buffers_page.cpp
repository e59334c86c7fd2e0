#include "ui/analysis/buffers_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "core/util/safe_text.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/analysis_widgets.h"
#include "ui/analysis/range_banner.h"
#include "ui/models/report_buffer_model.h"
#include "ui/models/report_format.h"
#include "ui/models/report_summary_models.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

void styleTable(QTableView* view) {
  view->verticalHeader()->hide();
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
  view->setAlternatingRowColors(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setWordWrap(false);
  view->horizontalHeader()->setHighlightSections(false);
}

}  // namespace

BuffersPage::BuffersPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("buffersPage"));
  m_model = new BufferTableModel(this);
  m_proxy = new BufferFilterProxy(this);
  m_proxy->setSourceModel(m_model);
  m_roles = new RoleTotalsModel(this);

  m_title = new QLabel(this);
  m_title->setWordWrap(true);
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_title->setTextFormat(Qt::PlainText);
  QFont font = m_title->font();
  font.setBold(true);
  font.setPointSizeF(font.pointSizeF() * 1.1);
  m_title->setFont(font);

  m_filter = new QLineEdit(this);
  m_filter->setObjectName(QStringLiteral("bufferFilter"));
  m_filter->setPlaceholderText(tr("Filter by shape, role, instruction, op name or source line (Ctrl+F)"));
  m_filter->setClearButtonEnabled(true);
  m_roleBox = new QComboBox(this);
  m_roleBox->setObjectName(QStringLiteral("roleFilter"));
  m_roleBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* filters = new QHBoxLayout;
  filters->addWidget(m_filter, 1);
  filters->addWidget(new QLabel(tr("Role:"), this));
  filters->addWidget(m_roleBox);

  m_view = new QTableView(this);
  m_view->setObjectName(QStringLiteral("buffersView"));
  m_view->setModel(m_proxy);
  styleTable(m_view);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(BufferTableModel::Size, Qt::DescendingOrder);
  m_view->setTextElideMode(Qt::ElideLeft);  // paths and name stacks say most at their end
  QHeaderView* header = m_view->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::Interactive);
  header->setStretchLastSection(true);
  // Widths that leave the source line (the column users act on) in view at 1280 px.
  header->resizeSection(BufferTableModel::Size, 80);
  header->resizeSection(BufferTableModel::Shape, 165);
  header->resizeSection(BufferTableModel::Role, 145);  // "forward-transient" with its swatch
  header->resizeSection(BufferTableModel::Instruction, 150);
  header->resizeSection(BufferTableModel::OpName, 210);

  m_rolesView = new QTableView(this);
  m_rolesView->setObjectName(QStringLiteral("roleTotalsView"));
  m_rolesView->setModel(m_roles);
  styleTable(m_rolesView);
  m_rolesView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_rolesView->horizontalHeader()->setSectionResizeMode(RoleTotalsModel::Role, QHeaderView::Stretch);
  m_rolesView->setToolTip(tr("Click a role to show only its buffers"));
  auto* side = new QVBoxLayout;
  m_rolesTitle = makeSectionTitle(tr("Role totals at the peak"), this);
  side->addWidget(m_rolesTitle);
  side->addWidget(m_rolesView);
  side->addWidget(
      makeNote(tr("Roles come from the JAX name stack in op_name (derived); sizes from the plan (read). "
                  "Click a role to list only its buffers."),
               this));
  side->addStretch(1);
  auto* sideWidget = new QWidget(this);
  sideWidget->setLayout(side);
  side->setContentsMargins(0, 0, 0, 0);
  sideWidget->setFixedWidth(345);  // the longest role name, "forward-transient", unelided
  m_rolesView->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_rolesView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

  m_empty = makeNote(QString(), this);
  m_footer = new QLabel(this);
  m_footer->setObjectName(QStringLiteral("buffersFooter"));
  m_footer->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* main = new QVBoxLayout;
  main->setContentsMargins(0, 0, 0, 0);
  main->addLayout(filters);
  main->addWidget(m_view, 1);
  main->addWidget(m_footer);
  auto* body = new QHBoxLayout;
  body->addLayout(main, 1);
  body->addSpacing(8);
  body->addWidget(sideWidget);

  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(12, 10, 12, 8);
  outer->addWidget(m_title);
  m_banner = new RangeBanner(this);
  outer->addWidget(m_banner);
  outer->addWidget(m_empty);
  outer->addLayout(body, 1);

  connect(m_filter, &QLineEdit::textChanged, m_proxy, &BufferFilterProxy::setFilterText);
  connect(m_roleBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    const QVariant v = m_roleBox->itemData(i);
    m_proxy->setRoleFilter(v.isValid() ? std::optional(analysis::BufferRole(v.toInt())) : std::nullopt);
  });
  connect(m_rolesView, &QTableView::clicked, this, [this](const QModelIndex& idx) {
    const int wanted = int(m_roles->total(idx.row()).role);
    const int at = m_roleBox->findData(wanted);
    m_roleBox->setCurrentIndex(m_roleBox->currentIndex() == at ? 0 : at);
  });
  connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (!current.isValid()) {
              emit lifetimeSelected(-1, -1, QString());
              return;
            }
            const analysis::PlanBuffer& b = m_model->buffer(m_proxy->mapToSource(current).row());
            const QString label =
                tr("lifetime of %1 %2 (%3)")
                    .arg(safeText(b.instruction), safeText(b.shape), bytesText(b.size_bytes));
            // Indefinite buffers (parameters, outputs, constants) live for the whole program.
            if (b.indefinite || b.live_since_event < 0)
              emit lifetimeSelected(0, -1, label);
            else
              emit lifetimeSelected(b.live_since_event, b.freed_at_event, label);
          });
  connect(m_proxy, &QAbstractItemModel::modelReset, this, &BuffersPage::updateFooter);
  connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &BuffersPage::updateFooter);
  connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &BuffersPage::updateFooter);
  connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &BuffersPage::updateFooter);
  clear();
}

void BuffersPage::focusFilter() {
  m_filter->setFocus(Qt::ShortcutFocusReason);
  m_filter->selectAll();
}

void BuffersPage::clear() { setResult(nullptr); }

void BuffersPage::setResult(std::shared_ptr<const AnalysisResult> result) {
  m_result = std::move(result);
  m_selectionNote.clear();
  const analysis::HostReport* r = m_result ? m_result->report.get() : nullptr;
  m_model->setReport(m_result ? m_result->report : nullptr);
  m_roles->setReport(m_result ? m_result->report : nullptr);
  fillRoleBox();
  // The totals table is as tall as its rows, so the note sits right under it.
  const int rows = std::max(m_roles->rowCount(), 1);
  m_rolesView->setFixedHeight(m_rolesView->horizontalHeader()->sizeHint().height() +
                              rows * m_rolesView->verticalHeader()->defaultSectionSize() +
                              2 * m_rolesView->frameWidth());
  QString empty;
  if (!r) {
    m_title->setText(tr("Buffers live at the peak"));
    empty = tr("Open a capture to list the buffers live at its plan's peak.");
  } else if (!r->plan) {
    m_title->setText(tr("Buffers live at the peak"));
    empty = tr("No module is analysed, so there is no plan peak to list.");
  } else {
    const analysis::PlanAnalysis& p = *r->plan;
    const QString module = QStringLiteral("%1(%2)")
                               .arg(QString::fromStdString(single_line_safe(p.module_name)))
                               .arg(p.program_id);
    if (p.status != analysis::PlanStatus::Ok) {
      m_title->setText(tr("Buffers of %1").arg(module));
      empty = p.status == analysis::PlanStatus::NoBufferAssignment
                  ? tr("%1 has no buffer assignment in the capture: no buffers are known.").arg(module)
                  : tr("%1 has no usable heap-simulator trace, so the buffers at its peak cannot be told.")
                        .arg(module);
    } else {
      // A selection moves the "peak" to the highest point inside it (PlanOptions::peak_range).
      const QString point = p.peak_range ? tr("the highest point of %1 in program positions %2 .. %3")
                                               .arg(module)
                                               .arg(p.peak_range->first)
                                               .arg(p.peak_range->second)
                                         : tr("the peak of %1").arg(module);
      m_title->setText(tr("%1 buffer%2 live at %3: %4 at %5 (derived)")
                           .arg(p.live_at_peak.size())
                           .arg(p.live_at_peak.size() == 1 ? QString() : QStringLiteral("s"))
                           .arg(point, bytesText(p.peak_bytes),
                                QString::fromStdString(single_line_safe(p.peak_instruction))));
      m_rolesTitle->setText(p.peak_range ? tr("Role totals at that point") : tr("Role totals at the peak"));
      m_title->setToolTip(tr("Peak %1, at event %2 of the heap-simulator trace")
                              .arg(bytesWithExact(p.peak_bytes))
                              .arg(p.peak_event_index));
    }
  }
  m_empty->setText(empty);
  m_empty->setVisible(!empty.isEmpty());
  updateFooter();
}

void BuffersPage::fillRoleBox() {
  const QVariant keep = m_roleBox->currentData();
  const QSignalBlocker block(m_roleBox);
  m_roleBox->clear();
  m_roleBox->addItem(tr("All roles"));
  for (int r = 0; r < m_roles->rowCount(); ++r) {
    const analysis::RoleTotal& t = m_roles->total(r);
    m_roleBox->addItem(QStringLiteral("%1 (%2)").arg(roleText(t.role)).arg(t.buffers), int(t.role));
    m_roleBox->setItemData(m_roleBox->count() - 1, roleColor(t.role), Qt::DecorationRole);
  }
  const int at = keep.isValid() ? m_roleBox->findData(keep) : 0;
  m_roleBox->setCurrentIndex(at < 0 ? 0 : at);
  const QVariant v = m_roleBox->currentData();
  m_proxy->setRoleFilter(v.isValid() ? std::optional(analysis::BufferRole(v.toInt())) : std::nullopt);
}

QString BuffersPage::footerText() const { return m_footer->text(); }

const analysis::PlanBuffer* BuffersPage::selectedBuffer() const {
  const QModelIndex current = m_view->selectionModel()->currentIndex();
  if (!current.isValid() || !m_view->selectionModel()->isRowSelected(current.row(), QModelIndex()))
    return nullptr;
  return &m_model->buffer(m_proxy->mapToSource(current).row());
}

bool BuffersPage::selectInstruction(const QString& instruction) {
  m_selectionNote.clear();
  int best = -1;
  for (int row = 0; row < m_proxy->rowCount(); ++row) {
    const analysis::PlanBuffer& b = m_model->buffer(m_proxy->mapToSource(m_proxy->index(row, 0)).row());
    if (QString::fromStdString(b.instruction) != instruction) continue;
    if (best < 0 ||
        b.size_bytes > m_model->buffer(m_proxy->mapToSource(m_proxy->index(best, 0)).row()).size_bytes)
      best = row;
  }
  if (best < 0) {
    m_view->clearSelection();
    m_selectionNote = tr("%1 defines no buffer listed here.").arg(safeText(instruction));
    updateFooter();
    return false;
  }
  const QModelIndex at = m_proxy->index(best, 0);
  m_view->selectionModel()->setCurrentIndex(at,
                                            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_view->scrollTo(at);
  updateFooter();
  return true;
}

void BuffersPage::updateFooter() {
  const int shown = m_proxy->rowCount();
  const int all = m_model->rowCount();
  if (all == 0) {
    m_footer->clear();
    return;
  }
  const qint64 bytes = m_proxy->shownBytes();
  const qint64 peak = m_result && m_result->report->plan ? m_result->report->plan->peak_bytes : 0;
  QString text = shown == all ? tr("All %1 buffers: %2").arg(all).arg(bytesText(bytes))
                              : tr("Showing %1 of %2 buffers: %3").arg(shown).arg(all).arg(bytesText(bytes));
  const bool ranged = m_result && m_result->report->plan && m_result->report->plan->peak_range;
  if (peak > 0)
    text += (ranged ? tr(" = %1 of the highest point in the selection") : tr(" = %1 of the peak"))
                .arg(percentText(100.0 * double(bytes) / double(peak)));
  if (!m_selectionNote.isEmpty()) text += QStringLiteral(" \u00b7 ") + m_selectionNote;
  m_footer->setText(text);
  m_footer->setToolTip(exactBytesText(bytes));
}

}  // namespace oomscope::ui
