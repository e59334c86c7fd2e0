#pragma once
// Every input of the simulator as a widget: the policy toggles (with the original/corrected presets), the
// workload (scenes, batch, size distribution or a sizes file, seed), the memory model (budget slider and
// spin box in GiB, fragmentation penalty) and the fault injection (bug scene and kind), plus what run B
// compares against. Emits configChanged() on every user edit; the page debounces and re-simulates.

#include <QWidget>

#include <optional>

#include "core/sim/config.h"

class QButtonGroup;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;
class QToolButton;

namespace oomscope::ui {

class SimControls : public QWidget {
  Q_OBJECT

 public:
  enum class Compare { None, Corrected, Original };

  explicit SimControls(QWidget* parent = nullptr);

  // The config of run A as the widgets describe it.
  sim::SimConfig config() const;
  void setConfig(const sim::SimConfig& config);
  // Run B: the same scenes, memory and fault as A with the chosen preset's policy; nullopt for no comparison.
  std::optional<sim::SimConfig> compareConfig() const;
  Compare compare() const;
  void setCompare(Compare c);

  void setPreset(const QString& name);  // "original" | "corrected"
  void setSizesFile(const QString& path);
  void setBudgetGiB(double gib);

 signals:
  void configChanged();

 private:
  QWidget* makeToggle(const QString& a, const QString& b, QButtonGroup*& group);
  void applyPolicy(const sim::Policy& policy);
  void policyEdited();
  void updatePresetLabel();
  void edited();

  bool m_updating = false;
  QComboBox* m_preset = nullptr;
  QButtonGroup* m_catch = nullptr;
  QButtonGroup* m_grad = nullptr;
  QButtonGroup* m_split = nullptr;
  QButtonGroup* m_axis = nullptr;
  QSpinBox* m_floor = nullptr;
  QSpinBox* m_scenes = nullptr;
  QSpinBox* m_batch = nullptr;
  QComboBox* m_dist = nullptr;
  QToolButton* m_sizesButton = nullptr;
  QString m_sizesFile;
  QSpinBox* m_seed = nullptr;
  QSlider* m_budgetSlider = nullptr;
  QDoubleSpinBox* m_budget = nullptr;
  QSpinBox* m_frag = nullptr;
  QSpinBox* m_bugScene = nullptr;
  QComboBox* m_bugKind = nullptr;
  QComboBox* m_compare = nullptr;
};

}  // namespace oomscope::ui
