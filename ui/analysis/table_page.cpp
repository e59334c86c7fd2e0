#include "ui/analysis/table_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/models/record_table_model.h"
#include "ui/models/table_filter_proxy.h"

namespace oomscope::ui {

TablePage::TablePage(RecordTableModel* model, Options options, QWidget* parent)
    : QWidget(parent), m_model(model), m_options(std::move(options)) {
  m_proxy = new TableFilterProxy(this);
  m_proxy->setSourceModel(m_model);

  m_view = new QTableView(this);
  m_view->setModel(m_proxy);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(m_options.sortColumn, m_options.sortOrder);
  m_view->setAlternatingRowColors(true);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_view->setWordWrap(false);
  m_view->setTextElideMode(Qt::ElideMiddle);  // module names differ at their ends: jit_f(1) vs jit_f(2)
  m_view->verticalHeader()->hide();
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
  // A page whose rows grow to fit wrapped text (the Hosts page) keeps the table as tall as its rows.
  connect(m_view->verticalHeader(), &QHeaderView::sectionResized, this, [this] { fitHeight(); });

  m_view->horizontalHeader()->setHighlightSections(false);
  // Sizing columns looks at no more than this many rows, so a huge table fills instantly.
  m_view->horizontalHeader()->setResizeContentsPrecision(500);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 4);
  layout->setSpacing(6);
  if (m_options.filterable) {
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("filterEdit"));
    m_filter->setPlaceholderText(m_options.filterHint);
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &TableFilterProxy::setFilterText);
    layout->addWidget(m_filter);
  }
  layout->addWidget(m_view, 1);
  m_footer = new QLabel(this);
  m_footer->setObjectName(QStringLiteral("footer"));
  m_footer->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(m_footer);
  if (!m_options.notes.isEmpty()) {
    m_notes = new QLabel(m_options.notes, this);
    m_notes->setObjectName(QStringLiteral("notes"));
    m_notes->setWordWrap(true);
    m_notes->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_notes);
  }
  layout->addStretch(0);

  connect(m_proxy, &QAbstractItemModel::modelReset, this, &TablePage::updateFooter);
  connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &TablePage::updateFooter);
  connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &TablePage::updateFooter);
  connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &TablePage::updateFooter);
  connect(m_model, &QAbstractItemModel::modelReset, this, &TablePage::fitColumns);
  // Columns wider than the page bring a horizontal scroll bar: the table grows by its height.
  connect(m_view->horizontalScrollBar(), &QScrollBar::rangeChanged, this, &TablePage::fitHeight);
  fitColumns();
  updateFooter();
}

void TablePage::addTopWidget(QWidget* widget) {
  static_cast<QVBoxLayout*>(layout())->insertWidget(0, widget);
}

void TablePage::focusFilter() {
  if (!m_filter) return;
  m_filter->setFocus(Qt::ShortcutFocusReason);
  m_filter->selectAll();
}

void TablePage::fitColumns() {
  auto* header = m_view->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::Interactive);
  m_view->resizeColumnsToContents();
  // Numbers keep the width they need plus some air; the name column takes the rest of the width.
  for (int col = 1; col < m_model->columnCount(); ++col)
    header->resizeSection(col, header->sectionSize(col) + 16);
  header->setSectionResizeMode(0, QHeaderView::Stretch);
}

void TablePage::fitHeight() {
  // The table is as tall as its rows (the page limits it), so the footer and notes sit right under the data
  // instead of under a mostly empty white box.
  auto* horizontal = m_view->horizontalScrollBar();
  const int height = 2 * m_view->frameWidth() + m_view->horizontalHeader()->sizeHint().height() +
                     std::max(m_proxy->rowCount() * m_view->verticalHeader()->defaultSectionSize(),
                              m_view->verticalHeader()->length()) +
                     (horizontal->maximum() > 0 ? horizontal->sizeHint().height() : 0) + 1;
  m_view->setMaximumHeight(height);
}

void TablePage::updateFooter() {
  fitHeight();
  const int total = m_model->rowCount();
  const int shown = m_proxy->rowCount();
  const QString noun = total == 1 ? m_options.noun : m_options.noun + QLatin1Char('s');
  if (shown == total) {
    m_footer->setText(tr("%1 %2").arg(QLocale().toString(total), noun));
  } else {
    m_footer->setText(
        tr("%1 of %2 %3 shown").arg(QLocale().toString(shown), QLocale().toString(total), noun));
  }
}

}  // namespace oomscope::ui
