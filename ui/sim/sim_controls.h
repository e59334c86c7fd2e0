#pragma once
// Every input of the simulator as a widget, the same set as `oomscope-cli simulate`: the policy toggles
// (with the original/corrected presets, the three catch modes, the floor action and the normalisation),
// the workload (scenes, batch, epochs, a batch limit, size distribution or a sizes file, a 64-bit seed),
// the memory model (budget, bytes per point, fixed bytes, fragmentation and empty_cache() relief, or a
// calibrated model file), the time model and the fault injection, plus what run B compares against.
// Emits configChanged() on every user edit; the page debounces and re-simulates.

#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/sim/config.h"

class QButtonGroup;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QLineEdit;
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
  // Sets every widget; scene sizes carried inline (a trace's) are kept and used while "sizes file" stays
  // selected.
  void setConfig(const sim::SimConfig& config);
  // Run B: the same scenes, memory and fault as A with the chosen preset's policy; nullopt for no comparison.
  std::optional<sim::SimConfig> compareConfig() const;
  Compare compare() const;
  void setCompare(Compare c);

  void setSizesFile(const QString& path);
  void setBudgetGiB(double gib);
  // Reads a calibrated model file (docs/sim-model-format.md) into the memory and time widgets; false and
  // modelError() with the reason when it cannot.
  bool loadModelFile(const QString& path);
  QString modelFile() const { return m_modelFile; }

 signals:
  void configChanged();
  void modelError(const QString& message);

 private:
  QWidget* buildPolicy();
  QWidget* buildWorkload();
  QWidget* buildMemory();
  QWidget* buildTime();
  // One segment per (text, id) option; the ids are the options' enum values (enum_combo.h reads them).
  QWidget* makeToggle(const QList<QPair<QString, int>>& options, QButtonGroup*& group);
  void connectEdits();
  void applyPolicy(const sim::Policy& policy);
  void policyEdited();
  void updatePresetLabel();
  void updateAxisNote();
  void edited();

  bool m_updating = false;
  sim::SimConfig m_base;  // the last config set: exact values behind the rounded spin boxes
  QComboBox* m_preset = nullptr;
  QButtonGroup* m_catch = nullptr;
  QButtonGroup* m_grad = nullptr;
  QButtonGroup* m_split = nullptr;
  QButtonGroup* m_axis = nullptr;
  QLabel* m_axisNote = nullptr;
  QSpinBox* m_floor = nullptr;
  QComboBox* m_onFloor = nullptr;
  QComboBox* m_norm = nullptr;
  QSpinBox* m_scenes = nullptr;
  QSpinBox* m_batch = nullptr;
  QSpinBox* m_epochs = nullptr;
  QSpinBox* m_maxBatches = nullptr;
  QComboBox* m_dist = nullptr;
  QToolButton* m_sizesButton = nullptr;
  QString m_sizesFile;
  std::vector<std::int64_t> m_inlineSizes;  // sizes that came with a config (a trace), not from a file
  QLineEdit* m_seed = nullptr;
  std::uint64_t m_seedValue = 1;
  QSlider* m_budgetSlider = nullptr;
  QDoubleSpinBox* m_budget = nullptr;
  QDoubleSpinBox* m_bytesPerPoint = nullptr;
  QDoubleSpinBox* m_fixed = nullptr;
  QSpinBox* m_frag = nullptr;
  QSpinBox* m_relief = nullptr;
  QToolButton* m_modelButton = nullptr;
  QString m_modelFile;
  QDoubleSpinBox* m_forward = nullptr;
  QDoubleSpinBox* m_backward = nullptr;
  QDoubleSpinBox* m_attempt = nullptr;
  QDoubleSpinBox* m_hostCopy = nullptr;
  QDoubleSpinBox* m_flush = nullptr;
  QDoubleSpinBox* m_shapeAt = nullptr;
  QSpinBox* m_bugScene = nullptr;
  QComboBox* m_bugKind = nullptr;
  QComboBox* m_compare = nullptr;
};

}  // namespace oomscope::ui
