#include "ui/shell/navigator_view.h"

#include <QApplication>
#include <QDockWidget>
#include <QFontMetrics>
#include <QHeaderView>
#include <QMainWindow>
#include <QScrollBar>
#include <QStyledItemDelegate>
#include <QTimer>
#include <algorithm>

#include "ui/models/navigator_model.h"

namespace oomscope::ui {

namespace {

// What keeps a row apart from its namesakes when its name is cut: a module's "(program id)".
QString keptSuffix(const QModelIndex& index) {
  if (index.column() != 0 || NavigatorModel::kindOf(index) != NavigatorModel::Kind::Module) return {};
  return QStringLiteral("(%1)").arg(index.data(NavigatorModel::ProgramIdRole).toULongLong());
}

// Draws the name column with the text cut by NavigatorView::elideKeeping for the width the style gives it.
class NavigatorDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  // The text drawn for index in option's rectangle.
  QString shownText(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    return cut(opt, index);
  }

  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text = cut(opt, index);
    const QWidget* widget = opt.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
  }

 private:
  // The style draws the text in SE_ItemViewItemText less its focus-frame margin on each side.
  static QString cut(const QStyleOptionViewItem& opt, const QModelIndex& index) {
    if (index.column() != 0) return opt.text;
    const QWidget* widget = opt.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    const int width = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget).width() - 2 * margin;
    return NavigatorView::elideKeeping(opt.text, keptSuffix(index), opt.fontMetrics, width);
  }
};

}  // namespace

NavigatorView::NavigatorView(QWidget* parent) : QTreeView(parent) {
  setItemDelegate(new NavigatorDelegate(this));
  setTextElideMode(Qt::ElideRight);  // what the delegate has not cut already (the size column) ends in "…"
  connect(this, &QTreeView::expanded, this, [this] { scheduleFit(); });
}

void NavigatorView::setModel(QAbstractItemModel* model) {
  if (this->model()) disconnect(this->model(), nullptr, this, nullptr);
  QTreeView::setModel(model);
  if (!model) return;
  connect(model, &QAbstractItemModel::rowsInserted, this, [this] { scheduleFit(); });
  connect(model, &QAbstractItemModel::modelReset, this, [this] { scheduleFit(); });
  connect(model, &QAbstractItemModel::dataChanged, this, [this] { scheduleFit(); });
}

QSize NavigatorView::sizeHint() const {
  const QSize base = QTreeView::sizeHint();
  if (!model()) return {kMinWidth, base.height()};
  int width = 2 * frameWidth() + verticalScrollBar()->sizeHint().width();
  for (int column = 0; column < model()->columnCount(); ++column)
    width += std::max(sizeHintForColumn(column), header()->sectionSizeHint(column));
  return {std::clamp(width, kMinWidth, kMaxWidth), base.height()};
}

QString NavigatorView::visibleText(const QModelIndex& index) const {
  QStyleOptionViewItem option;
  initViewItemOption(&option);
  option.rect = visualRect(index);
  return static_cast<const NavigatorDelegate*>(itemDelegate())->shownText(option, index);
}

void NavigatorView::scheduleFit() {
  if (m_fitPending) return;
  m_fitPending = true;
  // After the change's other steps (the window expands the new rows right after filling them).
  QTimer::singleShot(0, this, [this] {
    m_fitPending = false;
    fitDock();
  });
}

void NavigatorView::fitDock() {
  auto* dock = qobject_cast<QDockWidget*>(parentWidget());
  auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr;
  if (!window || dock->isFloating() || !dock->isVisible()) return;
  const int wanted = std::min(sizeHint().width(), std::max(kMinWidth, window->width() * 2 / 5));
  const int extra = dock->width() - width();  // the dock's own frame around the tree
  // The window's other side keeps its minimum width: the dock gets what is left, up to wanted.
  if (dock->width() < wanted + extra) window->resizeDocks({dock}, {wanted + extra}, Qt::Horizontal);
}

QString NavigatorView::elideKeeping(const QString& text, const QString& suffix, const QFontMetrics& metrics,
                                    int width) {
  if (metrics.horizontalAdvance(text) <= width) return text;
  if (suffix.isEmpty() || !text.endsWith(suffix) || text.size() == suffix.size())
    return metrics.elidedText(text, Qt::ElideRight, width);
  const QString head = text.chopped(suffix.size());
  const QString cut = metrics.elidedText(head, Qt::ElideRight, width - metrics.horizontalAdvance(suffix));
  // Too narrow for any of the name: the ellipsis alone says there is one.
  return (cut.isEmpty() ? QString(QChar(0x2026)) : cut) + suffix;
}

}  // namespace oomscope::ui
