#include "ui/models/navigator_model.h"

#include <QFileInfo>
#include <QFont>
#include <algorithm>

#include "core/util/bytes.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

QString bytes(qint64 n) { return QString::fromStdString(format_bytes(std::int64_t(n))); }
QString exact(qint64 n) { return QString::fromStdString(format_bytes_exact(std::int64_t(n))); }
QString safe(const QString& text) { return safeText(text); }

QStandardItem* makeItem(const QString& text, NavigatorModel::Kind kind, int host) {
  auto* it = new QStandardItem(text);
  it->setEditable(false);
  it->setData(int(kind), NavigatorModel::KindRole);
  it->setData(host, NavigatorModel::HostRole);
  return it;
}

QStandardItem* sizeItem(const QString& text, const QString& tip = {}) {
  auto* it = new QStandardItem(text);
  it->setEditable(false);
  it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  if (!tip.isEmpty()) it->setToolTip(tip);
  return it;
}

void setBold(QStandardItem* it, bool bold) {
  QFont font = it->font();
  font.setBold(bold);
  it->setFont(font);
}

}  // namespace

QString describeChoice(analysis::ModuleChoice choice) {
  switch (choice) {
    case analysis::ModuleChoice::LastNeverStarted:
      return NavigatorModel::tr(
          "Analysed by default: its last execution never started (the run died there).");
    case analysis::ModuleChoice::LargestExecuted:
      return NavigatorModel::tr("Analysed by default: the largest module that executed.");
    case analysis::ModuleChoice::LargestModule:
      return NavigatorModel::tr("Analysed by default: no module executed, and this is the largest.");
    case analysis::ModuleChoice::UserSelected:
    case analysis::ModuleChoice::None:
      break;
  }
  return {};
}

NavigatorModel::NavigatorModel(QObject* parent) : QStandardItemModel(0, 2, parent) {
  setHorizontalHeaderLabels({tr("Name"), tr("Size")});
}

NavigatorModel::Kind NavigatorModel::kindOf(const QModelIndex& index) {
  return Kind(index.siblingAtColumn(0).data(KindRole).toInt());
}

int NavigatorModel::hostOf(const QModelIndex& index) {
  const QVariant host = index.siblingAtColumn(0).data(HostRole);
  return host.isValid() ? host.toInt() : -1;
}

QVariant NavigatorModel::data(const QModelIndex& index, int role) const {
  const QVariant value = QStandardItemModel::data(index, role);
  if (role != Qt::ToolTipRole) return value;
  QString tip = value.toString();
  if (index.column() == 0) {  // the name may be cut on screen (NavigatorView): the tooltip has it whole
    const QString name = QStandardItemModel::data(index, Qt::DisplayRole).toString();
    if (!tip.contains(name)) tip = tip.isEmpty() ? name : name + QLatin1Char('\n') + tip;
  }
  return tip.isEmpty() ? QVariant() : QVariant(plainToolTip(tip));
}

void NavigatorModel::setHosts(const std::vector<HostEntry>& hosts) {
  removeRows(0, m_hostCount);  // the pages' lists after the files stay
  m_hostCount = 0;
  m_currentHost = -1;
  for (int h = 0; h < int(hosts.size()); ++h) {
    const HostEntry& entry = hosts[std::size_t(h)];
    auto* file = makeItem(safe(QFileInfo(entry.path).fileName()), Kind::File, h);
    file->setToolTip(QFileInfo(entry.path).absoluteFilePath());
    file->setIcon(QIcon::fromTheme(QStringLiteral("text-x-generic")));
    const QString hostName = entry.hostnames.isEmpty() ? tr("(no host name recorded)")
                                                       : safe(entry.hostnames.join(QStringLiteral(", ")));
    auto* host = makeItem(hostName, Kind::Host, h);
    host->setToolTip(tr("Host %1: show its pages").arg(hostName));

    auto* modules = makeItem(tr("Modules (%1)").arg(entry.modules.size()), Kind::ModuleGroup, h);
    std::vector<ModuleRow> sorted = entry.modules;
    std::stable_sort(sorted.begin(), sorted.end(), [](const ModuleRow& a, const ModuleRow& b) {
      return a.totalAllocation > b.totalAllocation;
    });
    for (const ModuleRow& m : sorted) {
      auto* module = makeItem(QStringLiteral("%1(%2)").arg(safe(m.name)).arg(m.programId), Kind::Module, h);
      module->setData(m.programId, ProgramIdRole);
      module->setData(m.name, NameRole);
      module->setToolTip(tr("Analyse %1").arg(module->text()));
      modules->appendRow({module, m.hasPlan
                                      ? sizeItem(bytes(m.totalAllocation),
                                                 tr("%1 allocated in total (the plan's peak follows once "
                                                    "the host is analysed)")
                                                     .arg(exact(m.totalAllocation)))
                                      : sizeItem(QStringLiteral("\u2014"), tr("no buffer assignment"))});
    }
    auto* allocators = makeItem(tr("Allocators (%1)").arg(entry.allocators.size()), Kind::AllocatorGroup, h);
    for (const AllocatorRow& a : entry.allocators) {
      auto* allocator = makeItem(safe(a.name), Kind::Allocator, h);
      allocator->setData(a.name, NameRole);
      allocator->setToolTip(tr("Show %1 on the Allocators page").arg(safe(a.name)));
      const QString size =
          a.capacity > 0 ? tr("%1 of %2").arg(bytes(a.maxInUse), bytes(a.capacity)) : bytes(a.maxInUse);
      allocators->appendRow(
          {allocator,
           sizeItem(size, tr("most in use %1, capacity %2").arg(exact(a.maxInUse), exact(a.capacity)))});
    }
    host->appendRow({modules, sizeItem({})});
    host->appendRow({allocators, sizeItem({})});
    file->appendRow({host, sizeItem({})});
    insertRow(h, {file, sizeItem({})});
    ++m_hostCount;
  }
}

void NavigatorModel::setModulePlan(int host, const std::vector<analysis::ModuleRow>& modules,
                                   std::optional<std::size_t> defaultModule, analysis::ModuleChoice choice) {
  QStandardItem* groupItem = group(host, Kind::ModuleGroup);
  if (!groupItem) return;
  // Rebuilt in planned-peak order; the items keep their roles.
  std::vector<std::size_t> order(modules.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return modules[a].peak_bytes > modules[b].peak_bytes;
  });
  groupItem->removeRows(0, groupItem->rowCount());
  for (std::size_t i : order) {
    const analysis::ModuleRow& m = modules[i];
    const QString name = QString::fromStdString(m.name);
    auto* module = makeItem(QStringLiteral("%1(%2)").arg(safe(name)).arg(m.program_id), Kind::Module, host);
    module->setData(quint64(m.program_id), ProgramIdRole);
    module->setData(name, NameRole);
    const bool planned = m.status != analysis::PlanStatus::NoBufferAssignment;
    QString tip = tr("Analyse %1").arg(module->text());
    if (defaultModule == i) {
      setBold(module, true);
      module->setData(true, DefaultRole);
      tip = describeChoice(choice) + QLatin1Char('\n') + tip;
    }
    module->setToolTip(tip);
    groupItem->appendRow({module, planned
                                      ? sizeItem(bytes(m.peak_bytes), tr("planned peak %1 (derived from the "
                                                                         "heap simulation of its plan)")
                                                                          .arg(exact(m.peak_bytes)))
                                      : sizeItem(QStringLiteral("\u2014"), tr("no buffer assignment"))});
  }
  groupItem->setText(tr("Modules (%1)").arg(modules.size()));
}

void NavigatorModel::setCurrentHost(int host) {
  m_currentHost = host;
  for (int h = 0; h < m_hostCount; ++h) {
    QStandardItem* file = item(h);
    setBold(file, h == host && m_hostCount > 1);
    if (file->rowCount() > 0) setBold(file->child(0), h == host && m_hostCount > 1);
  }
}

QStandardItem* NavigatorModel::group(int host, Kind kind) const {
  if (host < 0 || host >= m_hostCount) return nullptr;
  QStandardItem* hostItem = item(host)->child(0);
  if (!hostItem) return nullptr;
  for (int r = 0; r < hostItem->rowCount(); ++r)
    if (Kind(hostItem->child(r)->data(KindRole).toInt()) == kind) return hostItem->child(r);
  return nullptr;
}

QModelIndex NavigatorModel::hostIndex(int host) const {
  if (host < 0 || host >= m_hostCount || !item(host)->child(0)) return {};
  return item(host)->child(0)->index();
}

QModelIndex NavigatorModel::moduleIndex(int host, quint64 programId) const {
  QStandardItem* g = group(host, Kind::ModuleGroup);
  for (int r = 0; g && r < g->rowCount(); ++r)
    if (g->child(r)->data(ProgramIdRole).toULongLong() == programId) return g->child(r)->index();
  return {};
}

QModelIndex NavigatorModel::allocatorIndex(int host, const QString& name) const {
  QStandardItem* g = group(host, Kind::AllocatorGroup);
  for (int r = 0; g && r < g->rowCount(); ++r)
    if (g->child(r)->data(NameRole).toString() == name) return g->child(r)->index();
  return {};
}

int NavigatorModel::addSource(const QString& title) {
  m_sourceTitles.push_back(title);
  return int(m_sourceTitles.size()) - 1;
}

QStandardItem* NavigatorModel::sourceItem(int source) const {
  for (int r = m_hostCount; r < rowCount(); ++r)
    if (item(r)->data(SourceRole).toInt() == source) return item(r);
  return nullptr;
}

void NavigatorModel::setSourceEntries(int source, const std::vector<NavigatorSource::Entry>& entries) {
  if (source < 0 || source >= int(m_sourceTitles.size())) return;
  QStandardItem* group = sourceItem(source);
  if (entries.empty()) {  // nothing to list: no group
    if (group) removeRow(group->row());
    return;
  }
  if (!group) {
    // Sources keep the order they were added in, after the files.
    int at = m_hostCount;
    while (at < rowCount() && item(at)->data(SourceRole).toInt() < source) ++at;
    group = makeItem(safe(m_sourceTitles[std::size_t(source)]), Kind::SourceGroup, -1);
    group->setData(source, SourceRole);
    insertRow(at, {group, sizeItem({})});
  }
  group->setToolTip(tr("%1: show the page").arg(group->text()));
  if (group->rowCount() != int(entries.size())) group->removeRows(0, group->rowCount());
  for (int e = 0; e < int(entries.size()); ++e) {
    const NavigatorSource::Entry& entry = entries[std::size_t(e)];
    if (e < group->rowCount()) {
      group->child(e, 0)->setText(safe(entry.label));
      group->child(e, 0)->setToolTip(safe(entry.tooltip));
      group->child(e, 1)->setText(safe(entry.detail));
      continue;
    }
    auto* it = makeItem(safe(entry.label), Kind::SourceEntry, -1);
    it->setData(source, SourceRole);
    it->setData(e, EntryRole);
    it->setToolTip(safe(entry.tooltip));
    group->appendRow({it, sizeItem(safe(entry.detail))});
  }
}

QModelIndex NavigatorModel::sourceIndex(int source) const {
  QStandardItem* group = sourceItem(source);
  return group ? group->index() : QModelIndex();
}

QModelIndex NavigatorModel::sourceEntryIndex(int source, int entry) const {
  QStandardItem* group = sourceItem(source);
  if (!group || entry < 0 || entry >= group->rowCount()) return {};
  return group->child(entry)->index();
}

int NavigatorModel::sourceOf(const QModelIndex& index) {
  const QVariant v = index.siblingAtColumn(0).data(SourceRole);
  return v.isValid() ? v.toInt() : -1;
}

int NavigatorModel::entryOf(const QModelIndex& index) {
  const QVariant v = index.siblingAtColumn(0).data(EntryRole);
  return v.isValid() ? v.toInt() : -1;
}

}  // namespace oomscope::ui
