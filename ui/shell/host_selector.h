#pragma once
// The Hosts toolbar of a multi-host run: "Host:" and a combo box naming each host as
// "host-a (host-a.xplane.pb)". Hidden while one file (or nothing) is open.

#include <QToolBar>

class QComboBox;

namespace oomscope::ui {

struct LoadedRun;

class HostSelector : public QToolBar {
  Q_OBJECT

 public:
  explicit HostSelector(QWidget* parent);

  // One entry per host of run; shown only when the run has several.
  void setRun(const LoadedRun& run);
  // Shows host as the current one without emitting hostChosen.
  void setCurrentHost(int host);
  QComboBox* comboBox() const { return m_combo; }

 signals:
  // The user chose another host.
  void hostChosen(int host);

 private:
  QComboBox* m_combo = nullptr;
  bool m_syncing = false;  // the selector is being filled or moved by the window, not by the user
};

}  // namespace oomscope::ui
