#include "ui/analysis/column_widths.h"

#include <QEvent>
#include <QHeaderView>
#include <QTableView>
#include <QVariantList>

#include "ui/session/settings_store.h"

namespace oomscope::ui {

ColumnWidthKeeper* ColumnWidthKeeper::attach(QTableView* view, const QString& name, SettingsStore* store) {
  return new ColumnWidthKeeper(view, name, store ? store : &SettingsStore::instance());
}

ColumnWidthKeeper::ColumnWidthKeeper(QTableView* view, const QString& name, SettingsStore* store)
    : QObject(view), m_view(view), m_name(name), m_store(store) {
  setObjectName(QStringLiteral("columnWidthKeeper"));
  QHeaderView* header = m_view->horizontalHeader();
  header->viewport()->installEventFilter(this);
  connect(header, &QHeaderView::sectionResized, this, [this] {
    if (m_dragging && !m_restoring) save();
  });
  if (auto* model = m_view->model()) {
    // Queued: the page's own fit, connected earlier or later, runs first; the user's widths then win.
    connect(model, &QAbstractItemModel::modelReset, this, &ColumnWidthKeeper::restore, Qt::QueuedConnection);
  }
  restore();
}

QString ColumnWidthKeeper::key() const { return QStringLiteral("tables/%1/columnWidths").arg(m_name); }

bool ColumnWidthKeeper::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::MouseButtonPress) m_dragging = true;
  if (event->type() == QEvent::MouseButtonRelease) m_dragging = false;
  return QObject::eventFilter(watched, event);
}

void ColumnWidthKeeper::save() {
  QHeaderView* header = m_view->horizontalHeader();
  QVariantList widths;
  for (int i = 0; i < header->count(); ++i) widths << header->sectionSize(i);
  m_store->setValue(key(), widths);
}

bool ColumnWidthKeeper::restore() {
  const QVariantList widths = m_store->value(key()).toList();
  QHeaderView* header = m_view->horizontalHeader();
  if (widths.isEmpty() || widths.size() != header->count()) return false;
  m_restoring = true;
  for (int i = 0; i < widths.size(); ++i) {
    const int width = widths.at(i).toInt();
    // The stretched column takes what is left; the others get what the user gave them.
    if (width > 0 && header->sectionResizeMode(i) != QHeaderView::Stretch) header->resizeSection(i, width);
  }
  m_restoring = false;
  return true;
}

}  // namespace oomscope::ui
