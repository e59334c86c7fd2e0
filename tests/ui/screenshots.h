#pragma once
// Where the UI tests save the screenshots a developer looks at: $OOMSCOPE_SCREENSHOT_DIR, else the build's
// tests/screenshots folder (OOMSCOPE_SCREENSHOT_DIR, set in tests/CMakeLists.txt).

#include <QCoreApplication>
#include <QDir>
#include <QString>
#include <QWidget>
#include <QtTest>

inline QString screenshotDir() {
  const QString env = qEnvironmentVariable("OOMSCOPE_SCREENSHOT_DIR");
  return env.isEmpty() ? QStringLiteral(OOMSCOPE_SCREENSHOT_DIR) : env;
}

// Saves w as screenshotDir()/name (the folder made when missing) after pending events, and says where.
inline void shoot(QWidget& w, const QString& name) {
  QDir().mkpath(screenshotDir());
  const QString path = QDir(screenshotDir()).filePath(name);
  QCoreApplication::processEvents();  // deferred scrolls and repaints land before the grab
  QVERIFY(w.grab().save(path));
  qInfo("screenshot: %s", qPrintable(path));
}
