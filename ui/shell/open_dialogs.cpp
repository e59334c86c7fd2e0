#include "ui/shell/open_dialogs.h"

#include <QFileDialog>
#include <QFileInfo>

#include "ui/session/settings_store.h"

namespace oomscope::ui {

namespace {

const QString kLastDirKey = QStringLiteral("lastOpenDirectory");

}  // namespace

QStringList OpenDialogs::chooseFiles(const QString& dir, const QStringList& pageFilters) {
  SettingsStore& settings = SettingsStore::instance();
  const QString start = dir.isEmpty() ? settings.value(kLastDirKey).toString() : dir;
  QStringList filters = {
      tr("XProf captures (*.xplane.pb *.xplane.pb.gz)"),
      tr("PyTorch snapshots and traces, JAX memory profiles (*.pickle *.json *.gz *.prof)")};
  filters << pageFilters;
  filters << tr("Protocol buffers (*.pb)") << tr("All files (*)");
  const QStringList paths =
      m_chooser ? m_chooser(start)
                : QFileDialog::getOpenFileNames(
                      m_parent, tr("Open Capture (several files: one run, one file per host)"), start,
                      filters.join(QStringLiteral(";;")));
  if (!paths.isEmpty()) settings.setValue(kLastDirKey, QFileInfo(paths.first()).absolutePath());
  return paths;
}

QString OpenDialogs::chooseFolder() {
  SettingsStore& settings = SettingsStore::instance();
  const QString dir =
      QFileDialog::getExistingDirectory(m_parent, tr("Open Run Folder (its .xplane.pb files, one per host)"),
                                        settings.value(kLastDirKey).toString());
  if (!dir.isEmpty()) settings.setValue(kLastDirKey, dir);
  return dir;
}

}  // namespace oomscope::ui
