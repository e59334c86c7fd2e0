#pragma once
// What the window shows when no capture is open: how to record one, and a way to open the bundled example.

#include <QWidget>

class QPushButton;

namespace oomscope::ui {

class EmptyStatePage : public QWidget {
  Q_OBJECT

 public:
  explicit EmptyStatePage(QWidget* parent = nullptr);

  // Path of the bundled example capture; empty disables the button (and says why).
  void setExamplePath(const QString& path);

 signals:
  void openRequested();
  void openExampleRequested();
  void pasteLogRequested();

 private:
  QPushButton* m_example = nullptr;
};

}  // namespace oomscope::ui
