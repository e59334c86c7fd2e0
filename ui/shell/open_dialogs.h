#pragma once
// The dialogs that ask which files to open (File > Open, "Choose Another File..." after an error) and which
// run folder (File > Open Folder), starting in the folder last opened from, which they remember
// (SettingsStore, "lastOpenDirectory").

#include <QCoreApplication>
#include <QStringList>
#include <functional>

class QWidget;

namespace oomscope::ui {

class OpenDialogs {
  Q_DECLARE_TR_FUNCTIONS(OpenDialogs)

 public:
  // Answers in place of the file dialog (tests): the files to open, given the folder it would start in.
  using FileChooser = std::function<QStringList(const QString& dir)>;

  explicit OpenDialogs(QWidget* parent) : m_parent(parent) {}
  void setFileChooser(FileChooser chooser) { m_chooser = std::move(chooser); }

  // The files to open (several: one run, one file per host), starting in dir (empty: the folder last
  // opened from); pageFilters are the kinds of files the pages open. Empty when the user cancels.
  QStringList chooseFiles(const QString& dir, const QStringList& pageFilters);
  // A run folder, or empty when the user cancels.
  QString chooseFolder();

 private:
  QWidget* m_parent = nullptr;
  FileChooser m_chooser;
};

}  // namespace oomscope::ui
