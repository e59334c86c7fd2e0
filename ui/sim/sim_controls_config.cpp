// SimControls: reading and writing a SimConfig, presets, the sizes and model files.
#include <QButtonGroup>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <algorithm>
#include <cmath>

#include "core/sim/model_file.h"
#include "core/util/error.h"
#include "ui/session/safe_text_qt.h"
#include "ui/sim/enum_combo.h"
#include "ui/sim/sim_controls.h"

namespace oomscope::ui {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr int kSliderStepsPerGiB = 8;

// A spin box shows `exact / scale` rounded to its decimals. While the user has not changed it, the exact
// value (from a trace's or a model file's config) is kept rather than the rounded one shown.
std::int64_t exactOr(std::int64_t exact, double scale, const QDoubleSpinBox* w) {
  const double shown = double(exact) / scale;
  const double unit = std::pow(10.0, -w->decimals());
  if (std::abs(w->value() - std::clamp(shown, w->minimum(), w->maximum())) < 0.5 * unit) return exact;
  return std::llround(w->value() * scale);
}

void showScaled(QDoubleSpinBox* w, std::int64_t exact, double scale) { w->setValue(double(exact) / scale); }

}  // namespace

void SimControls::applyPolicy(const sim::Policy& p) {
  m_updating = true;
  checkEnum(m_catch, p.catch_mode);
  checkEnum(m_grad, p.grad);
  checkEnum(m_split, p.split);
  checkEnum(m_axis, p.axis);
  m_floor->setValue(int(std::min<std::int64_t>(p.floor, m_floor->maximum())));
  selectEnum(m_onFloor, p.on_floor);
  selectEnum(m_norm, p.norm);
  m_updating = false;
  updatePresetLabel();
  updateAxisNote();
}

void SimControls::policyEdited() {
  if (m_updating) return;
  updatePresetLabel();
  updateAxisNote();
  edited();
}

void SimControls::updatePresetLabel() {
  const QSignalBlocker b(m_preset);
  selectEnum(m_preset, sim::preset_of(config().policy));
}

void SimControls::updateAxisNote() {
  // What the simulator's own numbers show (docs/simulator.md), not what the toggle promises.
  if (checkedEnum<sim::SplitPoint>(m_split) == sim::SplitPoint::Median)
    m_axisNote->setText(tr("Median split: the axis rule changes no outcome (measured)."));
  else
    m_axisNote->setText(tr("Longest axis: measured no better than x/y (docs/simulator.md)."));
  m_axisNote->setVisible(m_split->checkedId() == 1 || m_axis->checkedId() == 1);
}

sim::SimConfig SimControls::config() const {
  sim::SimConfig c = m_base;
  c.policy.catch_mode = checkedEnum<sim::CatchMode>(m_catch);
  c.policy.grad = checkedEnum<sim::GradMode>(m_grad);
  c.policy.split = checkedEnum<sim::SplitPoint>(m_split);
  c.policy.axis = checkedEnum<sim::AxisRule>(m_axis);
  c.policy.floor = m_floor->value();
  c.policy.on_floor = currentEnum<sim::FloorAction>(m_onFloor);
  c.policy.norm = currentEnum<sim::NormMode>(m_norm);
  c.scenes.dist = currentEnum<sim::SizeDist>(m_dist);
  c.scenes.sizes.clear();
  if (c.scenes.dist == sim::SizeDist::File) {
    c.scenes.sizes_file = m_sizesFile.toStdString();
    c.scenes.sizes = m_inlineSizes;  // empty: the simulator reads the file
    c.scenes.count = m_inlineSizes.empty() ? 0 : m_base.scenes.count;
  } else {
    c.scenes.sizes_file.clear();
    c.scenes.count = m_scenes->value();
  }
  c.batch = m_batch->value();
  c.epochs = m_epochs->value();
  c.max_batches = m_maxBatches->value();
  c.seed = m_seedValue;
  c.memory.budget = exactOr(m_base.memory.budget, kGiB, m_budget);
  c.memory.bytes_per_point =
      std::max<std::int64_t>(1, exactOr(m_base.memory.bytes_per_point, 1024.0, m_bytesPerPoint));
  c.memory.fixed_bytes = exactOr(m_base.memory.fixed_bytes, 1048576.0, m_fixed);
  if (m_frag->value() != int(m_base.memory.fragmentation_penalty >> 20))
    c.memory.fragmentation_penalty = std::int64_t(m_frag->value()) << 20;
  if (m_relief->value() != int(std::lround(double(m_base.memory.empty_cache_relief_permille) / 10.0)))
    c.memory.empty_cache_relief_permille = m_relief->value() * 10;
  c.time.forward_ps_per_point = exactOr(m_base.time.forward_ps_per_point, 1e3, m_forward);
  c.time.backward_ps_per_point = exactOr(m_base.time.backward_ps_per_point, 1e3, m_backward);
  c.time.fixed_ns_per_attempt = exactOr(m_base.time.fixed_ns_per_attempt, 1e6, m_attempt);
  c.time.host_copy_ps_per_point = exactOr(m_base.time.host_copy_ps_per_point, 1e3, m_hostCopy);
  c.time.cache_flush_ns = exactOr(m_base.time.cache_flush_ns, 1e6, m_flush);
  c.time.shape_bug_forward_permille = exactOr(m_base.time.shape_bug_forward_permille, 10.0, m_shapeAt);
  c.fault.kind = currentEnum<sim::BugKind>(m_bugKind);
  c.fault.scene = c.fault.kind == sim::BugKind::None ? -1 : m_bugScene->value();
  return c;
}

void SimControls::setConfig(const sim::SimConfig& c) {
  m_base = c;
  applyPolicy(c.policy);
  m_updating = true;
  m_inlineSizes = c.scenes.dist == sim::SizeDist::File ? c.scenes.sizes : std::vector<std::int64_t>{};
  m_scenes->setValue(
      int(std::min<std::int64_t>(c.scenes.count > 0 ? c.scenes.count : 64, m_scenes->maximum())));
  m_batch->setValue(int(c.batch));
  m_epochs->setValue(int(c.epochs));
  m_maxBatches->setValue(int(std::min<std::int64_t>(c.max_batches, m_maxBatches->maximum())));
  m_seedValue = c.seed;
  m_seed->setText(QString::number(c.seed));
  selectEnum(m_dist, c.scenes.dist);
  m_sizesFile = QString::fromStdString(c.scenes.sizes_file);  // a path: kept as is, shown safe
  m_sizesButton->setText(!m_inlineSizes.empty()  ? tr("%1 sizes").arg(m_inlineSizes.size())
                         : m_sizesFile.isEmpty() ? tr("File…")
                                                 : safeText(QFileInfo(m_sizesFile).fileName()));
  m_sizesButton->setToolTip(plainToolTip(safeText(m_sizesFile)));
  m_sizesButton->setEnabled(c.scenes.dist == sim::SizeDist::File);
  m_scenes->setEnabled(c.scenes.dist != sim::SizeDist::File);
  showScaled(m_budget, c.memory.budget, kGiB);
  m_budgetSlider->setValue(int(std::lround(double(c.memory.budget) / kGiB * kSliderStepsPerGiB)));
  showScaled(m_bytesPerPoint, c.memory.bytes_per_point, 1024.0);
  showScaled(m_fixed, c.memory.fixed_bytes, 1048576.0);
  m_frag->setValue(int(std::min<std::int64_t>(c.memory.fragmentation_penalty >> 20, m_frag->maximum())));
  m_relief->setValue(int(std::lround(double(c.memory.empty_cache_relief_permille) / 10.0)));
  showScaled(m_forward, c.time.forward_ps_per_point, 1e3);
  showScaled(m_backward, c.time.backward_ps_per_point, 1e3);
  showScaled(m_attempt, c.time.fixed_ns_per_attempt, 1e6);
  showScaled(m_hostCopy, c.time.host_copy_ps_per_point, 1e3);
  showScaled(m_flush, c.time.cache_flush_ns, 1e6);
  showScaled(m_shapeAt, c.time.shape_bug_forward_permille, 10.0);
  selectEnum(m_bugKind, c.fault.kind);
  m_bugScene->setValue(int(std::max<std::int64_t>(c.fault.scene, 0)));
  m_bugScene->setEnabled(c.fault.kind != sim::BugKind::None);
  m_updating = false;
}

std::optional<sim::SimConfig> SimControls::compareConfig() const {
  if (compare() == Compare::None) return std::nullopt;
  sim::SimConfig c = config();
  c.policy = compare() == Compare::Corrected ? sim::preset_corrected() : sim::preset_original();
  return c;
}

SimControls::Compare SimControls::compare() const { return currentEnum<Compare>(m_compare); }

void SimControls::setCompare(Compare c) {
  selectEnum(m_compare, c);
  edited();
}

void SimControls::setSizesFile(const QString& path) {
  m_sizesFile = path;
  m_inlineSizes.clear();
  m_sizesButton->setText(path.isEmpty() ? tr("File…") : QFileInfo(path).fileName());
  m_sizesButton->setToolTip(plainToolTip(safeText(path)));
  if (!path.isEmpty() && currentEnum<sim::SizeDist>(m_dist) != sim::SizeDist::File) {
    const QSignalBlocker b(m_dist);
    selectEnum(m_dist, sim::SizeDist::File);
    m_sizesButton->setEnabled(true);
    m_scenes->setEnabled(false);
  }
  edited();
}

void SimControls::setBudgetGiB(double gib) { m_budget->setValue(gib); }

bool SimControls::loadModelFile(const QString& path) {
  try {
    const sim::CalibratedModel model = sim::read_model_file(path.toStdString());
    sim::SimConfig c = config();
    sim::apply_model(model, c);
    setConfig(c);
    m_modelFile = path;
    m_modelButton->setText(QFileInfo(path).fileName());
    m_modelButton->setToolTip(plainToolTip(safeText(path)));
    edited();
    return true;
  } catch (const Error& e) {
    emit modelError(safeMultiline(std::string_view(e.what())));
    return false;
  }
}

}  // namespace oomscope::ui
