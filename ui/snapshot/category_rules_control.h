#pragma once
// A snapshot window's category rules (docs/categories.md): the Categories menu (CategoryRulesMenu: load a
// rules file, load it again, back to the built-in rules), the line on the Top Allocations page that says
// which rules decided the categories, or why a file was refused (its name, line and problem, as the CLI words
// them), and the job that categorises the snapshot again on a worker (JobTracker). The last file that worked
// is remembered for the session: windows opened later categorise with it too.

#include <QObject>
#include <QString>
#include <memory>

#include "ui/snapshot/snapshot_document.h"

class QLabel;
class QMainWindow;

namespace oomscope::ui {

class CategoryRulesMenu;
class JobTracker;

class CategoryRulesControl : public QObject {
  Q_OBJECT

 public:
  // Adds the Categories menu to `window`'s menu bar.
  explicit CategoryRulesControl(QMainWindow* window);

  QLabel* label() const { return m_label; }  // for the page that shows the categories
  // The document shown now (the one `apply` categorises again); says which rules it was categorised with.
  void setDocument(std::shared_ptr<const SnapshotDocument> doc);
  // Categorises the document again with the rules of `path` first ("" = the built-in rules only): emits
  // applied with the new document (and remembers `path` for the session), or failed.
  void apply(const QString& path);
  bool busy() const;
  CategoryRulesMenu* menu() const { return m_menu; }

  // The rules file of this session ("" = none).
  static QString sessionRules();

 signals:
  void applied(std::shared_ptr<const oomscope::ui::SnapshotDocument> doc);
  void failed(const QString& message);

 private:
  void showSource();

  std::shared_ptr<const SnapshotDocument> m_doc;
  CategoryRulesMenu* m_menu = nullptr;  // the Categories menu
  JobTracker* m_job = nullptr;
  QLabel* m_label = nullptr;
};

}  // namespace oomscope::ui
