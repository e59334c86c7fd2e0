#pragma once
// A throw-away config home for a QtTest case: recent files, window geometry, column widths and the attach
// dialog's last choices are written under a temporary folder (removed with the test object), never into
// the developer's own ~/.config. Make it a member of the test object, so that it is in place before the
// first QSettings or SettingsStore is made:
//
//   class TestMainWindow : public QObject {
//     ...
//    private:
//     TempConfigHome m_config{QStringLiteral("tst_main_window")};
//   };

#include <QCoreApplication>
#include <QString>
#include <QTemporaryDir>
#include <QtGlobal>

class TempConfigHome {
 public:
  // `application` names the settings file (QSettings' organisation is "oomscope-tests").
  explicit TempConfigHome(const QString& application) {
    qputenv("XDG_CONFIG_HOME", m_dir.path().toLocal8Bit());
    QCoreApplication::setOrganizationName(QStringLiteral("oomscope-tests"));
    QCoreApplication::setApplicationName(application);
  }
  TempConfigHome(const TempConfigHome&) = delete;
  TempConfigHome& operator=(const TempConfigHome&) = delete;

  QString path() const { return m_dir.path(); }

 private:
  QTemporaryDir m_dir;
};
