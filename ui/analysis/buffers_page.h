#pragma once
// The Buffers page: the buffers live at the analysed plan's peak in a sortable table (size, shape, role,
// instruction, op name, source line), filtered by text (Ctrl+F) and by role, with the total of what is shown
// against the peak in the footer and the role totals beside the table (clicking a role filters by it).

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace oomscope::analysis {
struct PlanBuffer;
}

namespace oomscope::ui {
class RangeBanner;

struct AnalysisResult;
class BufferFilterProxy;
class BufferTableModel;
class RoleTotalsModel;

class BuffersPage : public QWidget {
  Q_OBJECT

 public:
  explicit BuffersPage(QWidget* parent = nullptr);

  void setResult(std::shared_ptr<const AnalysisResult> result);
  void clear();
  void focusFilter();

  BufferTableModel* model() const { return m_model; }
  BufferFilterProxy* proxy() const { return m_proxy; }
  RoleTotalsModel* roleTotals() const { return m_roles; }
  QTableView* view() const { return m_view; }
  QLineEdit* filterEdit() const { return m_filter; }
  QComboBox* roleBox() const { return m_roleBox; }
  QString footerText() const;
  RangeBanner* rangeBanner() const { return m_banner; }
  // Selects the largest listed buffer that `instruction` defines; false (and a footer note) when none is
  // listed.
  bool selectInstruction(const QString& instruction);
  // The buffer selected in the table, if any.
  const analysis::PlanBuffer* selectedBuffer() const;

 signals:
  // A buffer was selected: its lifetime in trace positions [from, to] (to = -1: never freed; from = -1 with
  // no selection) and a label naming it.
  void lifetimeSelected(qint64 from, qint64 to, const QString& label);

 private:
  void updateFooter();
  void fillRoleBox();

  std::shared_ptr<const AnalysisResult> m_result;
  BufferTableModel* m_model = nullptr;
  BufferFilterProxy* m_proxy = nullptr;
  RoleTotalsModel* m_roles = nullptr;
  QLabel* m_title = nullptr;
  QLabel* m_rolesTitle = nullptr;
  QLineEdit* m_filter = nullptr;
  QComboBox* m_roleBox = nullptr;
  QTableView* m_view = nullptr;
  QTableView* m_rolesView = nullptr;
  QLabel* m_footer = nullptr;
  QLabel* m_empty = nullptr;
  RangeBanner* m_banner = nullptr;
  QString m_selectionNote;
};

}  // namespace oomscope::ui
