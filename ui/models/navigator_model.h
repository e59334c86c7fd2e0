#pragma once
// The navigator's tree (the left dock; docs/gui.md, "Navigator"): open files, each file's host, then the
// host's modules sorted by planned peak (the default module in bold, with why it is the default in its
// tooltip) and its allocators. Two columns: the name and its size. Items carry their kind, host and program
// id in roles so the window can act on a selection and find the item for a module chosen elsewhere.

#include <QStandardItemModel>
#include <optional>
#include <vector>

#include "core/analysis/report/report.h"
#include "ui/models/capture_rows.h"
#include "ui/session/navigator_source.h"

namespace oomscope::ui {

class NavigatorModel : public QStandardItemModel {
  Q_OBJECT

 public:
  // SourceGroup / SourceEntry: a page's list (Live ranks, Simulator runs), after the files.
  enum class Kind { File, Host, ModuleGroup, Module, AllocatorGroup, Allocator, SourceGroup, SourceEntry };
  // DefaultRole: true on the module the host analyses by default (also drawn in bold, with why in its
  // tooltip).
  // SourceRole / EntryRole: which source (addSource's number) and which of its entries.
  enum Role {
    KindRole = Qt::UserRole + 1,
    HostRole,
    ProgramIdRole,
    NameRole,
    DefaultRole,
    SourceRole,
    EntryRole
  };

  struct HostEntry {
    QString path;
    QStringList hostnames;
    std::vector<ModuleRow> modules;
    std::vector<AllocatorRow> allocators;
  };

  explicit NavigatorModel(QObject* parent = nullptr);

  // Replaces the tree: one file per host entry (empty: nothing open).
  void setHosts(const std::vector<HostEntry>& hosts);
  // The planned peaks of a host's modules and its default module, once a report of that host is in: the
  // modules are re-sorted by planned peak and the default one marked.
  void setModulePlan(int host, const std::vector<analysis::ModuleRow>& modules,
                     std::optional<std::size_t> defaultModule, analysis::ModuleChoice choice);
  // The host the pages show is drawn in bold.
  void setCurrentHost(int host);

  QModelIndex hostIndex(int host) const;
  QModelIndex moduleIndex(int host, quint64 programId) const;
  QModelIndex allocatorIndex(int host, const QString& name) const;
  int hostCount() const { return m_hostCount; }

  // A page's list (NavigatorSource): shown after the files while it has entries; returns its number.
  int addSource(const QString& title);
  // Updates the entries in place when their number is unchanged, so a selection survives a refresh.
  void setSourceEntries(int source, const std::vector<NavigatorSource::Entry>& entries);
  QModelIndex sourceIndex(int source) const;
  QModelIndex sourceEntryIndex(int source, int entry) const;
  static int sourceOf(const QModelIndex& index);
  static int entryOf(const QModelIndex& index);

  // Every row's tooltip holds its whole name (the view may cut it), as plain text (plainToolTip).
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

  static Kind kindOf(const QModelIndex& index);
  static int hostOf(const QModelIndex& index);

 private:
  QStandardItem* group(int host, Kind kind) const;

  QStandardItem* sourceItem(int source) const;

  int m_currentHost = -1;
  int m_hostCount = 0;
  std::vector<QString> m_sourceTitles;  // by source number
};

// Why a module is analysed by default, in words for a tooltip.
QString describeChoice(analysis::ModuleChoice choice);

}  // namespace oomscope::ui
