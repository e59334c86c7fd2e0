#include "ui/shell/navigator_dock.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QTabWidget>

#include "ui/models/capture_rows.h"
#include "ui/models/navigator_model.h"
#include "ui/session/capture_session.h"
#include "ui/session/navigator_source.h"
#include "ui/shell/navigator_view.h"

namespace oomscope::ui {

NavigatorDock::NavigatorDock(QTabWidget* tabs, QWidget* parent)
    : QDockWidget(tr("Navigator"), parent), m_tabs(tabs) {
  m_model = new NavigatorModel(this);
  m_view = new NavigatorView(this);
  m_view->setObjectName(QStringLiteral("navigatorView"));
  m_view->setModel(m_model);
  m_view->setUniformRowHeights(true);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->header()->setStretchLastSection(false);
  m_view->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  m_view->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  m_view->setIndentation(12);
  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { onCurrentChanged(current); });

  setObjectName(QStringLiteral("navigatorDock"));
  setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
  setWidget(m_view);
  setMinimumWidth(NavigatorView::kMinWidth);
}

void NavigatorDock::setRun(const LoadedRun& run) {
  std::vector<NavigatorModel::HostEntry> entries;
  for (const LoadedCapture& host : run.hosts) {
    NavigatorModel::HostEntry entry;
    entry.path = host.path;
    for (const std::string& name : host.capture->hostnames()) entry.hostnames << QString::fromStdString(name);
    entry.modules = moduleRows(*host.capture);
    entry.allocators = allocatorRows(*host.capture);
    entries.push_back(std::move(entry));
  }
  m_syncing = true;
  m_model->setHosts(entries);
  m_view->expandToDepth(run.isMultiHost() ? 0 : 2);
  m_syncing = false;
}

void NavigatorDock::setCurrentHost(int host, bool multiHost) {
  m_syncing = true;
  m_model->setCurrentHost(host);
  if (multiHost) {
    m_view->expand(m_model->hostIndex(host).parent());
    m_view->expand(m_model->hostIndex(host));
  }
  m_syncing = false;
  select(m_model->hostIndex(host));
}

void NavigatorDock::setModulePlan(int host, const std::vector<analysis::ModuleRow>& modules,
                                  std::optional<std::size_t> defaultModule, analysis::ModuleChoice choice) {
  m_syncing = true;
  m_model->setModulePlan(host, modules, defaultModule, choice);
  m_syncing = false;
}

void NavigatorDock::select(const QModelIndex& index) {
  if (!index.isValid()) return;
  m_syncing = true;
  m_view->expand(index.parent());
  m_view->selectionModel()->setCurrentIndex(index,
                                            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_view->scrollTo(index);
  m_syncing = false;
}

void NavigatorDock::onCurrentChanged(const QModelIndex& index) {
  if (m_syncing || !index.isValid()) return;
  const int host = NavigatorModel::hostOf(index);
  const auto kind = NavigatorModel::kindOf(index);
  if (host >= 0) emit hostChosen(host);
  switch (kind) {
    case NavigatorModel::Kind::Module:
      emit moduleChosen(index.siblingAtColumn(0).data(NavigatorModel::ProgramIdRole).toULongLong());
      break;
    case NavigatorModel::Kind::Allocator:
      emit allocatorChosen(index.siblingAtColumn(0).data(NavigatorModel::NameRole).toString());
      break;
    case NavigatorModel::Kind::ModuleGroup:
      emit modulesChosen();
      break;
    case NavigatorModel::Kind::AllocatorGroup:
      emit allocatorsChosen();
      break;
    case NavigatorModel::Kind::SourceGroup:
    case NavigatorModel::Kind::SourceEntry: {
      const int source = NavigatorModel::sourceOf(index);
      if (source < 0 || source >= int(m_sources.size())) break;
      const auto [navigatorSource, page] = m_sources[std::size_t(source)];
      if (m_tabs->indexOf(page) >= 0) m_tabs->setCurrentWidget(page);
      if (kind == NavigatorModel::Kind::SourceEntry)
        navigatorSource->activate(NavigatorModel::entryOf(index));
      break;
    }
    case NavigatorModel::Kind::File:
    case NavigatorModel::Kind::Host:
      break;
  }
}

void NavigatorDock::addSource(NavigatorSource* source, QWidget* page) {
  const int id = m_model->addSource(source->title());
  m_sources.emplace_back(source, page);
  const auto sync = [this, source, page, id] {
    m_syncing = true;
    m_model->setSourceEntries(id, source->entries());
    m_syncing = false;
    // The page's own selection shows in the navigator while the page is in front (a background refresh
    // does not take the navigator away from a capture).
    if (source->current() >= 0 && m_tabs->currentWidget() == page)
      select(m_model->sourceEntryIndex(id, source->current()));
  };
  connect(source, &NavigatorSource::changed, this, sync);
  connect(m_tabs, &QTabWidget::currentChanged, source, [this, source, page, id] {
    const bool already = NavigatorModel::sourceOf(m_view->currentIndex()) == id;
    if (m_tabs->currentWidget() == page && source->current() >= 0 && !already)
      select(m_model->sourceEntryIndex(id, source->current()));
  });
  sync();
}

void NavigatorDock::forgetSources() {
  for (const auto& [source, page] : m_sources)
    disconnect(m_tabs, &QTabWidget::currentChanged, source, nullptr);
  m_sources.clear();
}

}  // namespace oomscope::ui
