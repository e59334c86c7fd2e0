#pragma once
// The navigator dock's tree (docs/gui.md, "Navigator"): it asks for the width of what it shows (within
// reason: kMinWidth to kMaxWidth, and at most 40 % of the window when it widens its dock), and a name too
// long for its column is cut at its end, never in its middle, keeping what tells two rows apart: a module
// row keeps its program id, "jit_train_…(123)". Each row's tooltip has the whole name (NavigatorModel).

#include <QTreeView>

class QFontMetrics;

namespace oomscope::ui {

class NavigatorView : public QTreeView {
  Q_OBJECT

 public:
  static constexpr int kMinWidth = 220;
  static constexpr int kMaxWidth = 520;

  explicit NavigatorView(QWidget* parent = nullptr);

  // Also watches the model, so the dock follows its rows.
  void setModel(QAbstractItemModel* model) override;
  // The width the rows need (both columns, the indentation, frame and scroll bar), within the bounds above.
  QSize sizeHint() const override;
  // The text the row of index shows at the current width of its column (as drawn).
  QString visibleText(const QModelIndex& index) const;
  // Widens the dock this view sits in to sizeHint(), never beyond 40 % of its window and never narrower than
  // the dock is (a width the user chose stays). Called by itself when the rows change or a row expands.
  void fitDock();

  // text cut at its end to fit width pixels, keeping suffix whole after the cut ("…" marks it); text that
  // does not end with suffix is cut like any other.
  static QString elideKeeping(const QString& text, const QString& suffix, const QFontMetrics& metrics,
                              int width);

 private:
  void scheduleFit();

  bool m_fitPending = false;
};

}  // namespace oomscope::ui
