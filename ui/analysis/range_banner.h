#pragma once
// The strip that says a selection re-scopes the page ("Showing 1.204 s .. 1.260 s of the capture") with one
// button to clear it. Hidden while nothing is selected.

#include <QFrame>

class QLabel;
class QPushButton;

namespace oomscope::ui {

class RangeBanner : public QFrame {
  Q_OBJECT

 public:
  explicit RangeBanner(QWidget* parent = nullptr);
  // Empty text hides the banner.
  void setText(const QString& text);
  QString text() const;
  QPushButton* clearButton() const { return m_clear; }

 signals:
  void clearRequested();

 private:
  QLabel* m_label = nullptr;
  QPushButton* m_clear = nullptr;
};

}  // namespace oomscope::ui
