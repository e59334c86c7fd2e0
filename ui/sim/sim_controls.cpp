#include "ui/sim/sim_controls.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>

#include <cmath>

namespace oomscope::ui {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr int kSliderStepsPerGiB = 8;

QGroupBox* group(const QString& title, QGridLayout*& grid) {
  auto* box = new QGroupBox(title);
  grid = new QGridLayout(box);
  grid->setContentsMargins(8, 6, 8, 6);
  grid->setHorizontalSpacing(6);
  grid->setVerticalSpacing(4);
  return box;
}

void addRow(QGridLayout* grid, int row, int col, const QString& label, QWidget* w, const QString& tip) {
  auto* l = new QLabel(label);
  l->setBuddy(w);
  l->setToolTip(tip);
  w->setToolTip(tip);
  grid->addWidget(l, row, col * 2, Qt::AlignRight);
  grid->addWidget(w, row, col * 2 + 1);
}

// A widget holding a horizontal layout with no margins: several controls on one form row.
QHBoxLayout* inlineRow(QWidget*& container, int spacing) {
  container = new QWidget;
  auto* layout = new QHBoxLayout(container);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(spacing);
  return layout;
}

}  // namespace

QWidget* SimControls::makeToggle(const QString& a, const QString& b, QButtonGroup*& group) {
  QWidget* w = nullptr;
  auto* h = inlineRow(w, 0);
  group = new QButtonGroup(w);
  group->setExclusive(true);
  int id = 0;
  for (const QString& text : {a, b}) {
    auto* btn = new QToolButton;
    btn->setText(text);
    btn->setCheckable(true);
    btn->setAutoRaise(false);
    btn->setToolButtonStyle(Qt::ToolButtonTextOnly);
    btn->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    btn->setObjectName(QStringLiteral("segment"));
    group->addButton(btn, id++);
    h->addWidget(btn);
  }
  group->button(0)->setChecked(true);
  connect(group, &QButtonGroup::idClicked, this, [this] { policyEdited(); });
  return w;
}

SimControls::SimControls(QWidget* parent) : QWidget(parent) {
  setStyleSheet(QStringLiteral(
      "QToolButton#segment { padding: 2px 8px; border: 1px solid #b8bfc7; background: #f7f8fa; }"
      "QToolButton#segment:checked { background: #1f6feb; color: white; border-color: #1f6feb; }"));
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->setSpacing(8);

  QGridLayout* g = nullptr;
  auto* policy = group(tr("Policy"), g);
  m_preset = new QComboBox;
  m_preset->addItems({tr("original"), tr("corrected"), tr("custom")});
  addRow(g, 0, 0, tr("Preset"), m_preset, tr("original: the reference's handler; corrected: every defect fixed"));
  addRow(g, 1, 0, tr("Catch"), makeToggle(tr("OOM only"), tr("everything"), m_catch),
         tr("everything: a real bug is split and dropped silently, like an OOM"));
  addRow(g, 2, 0, tr("Gradient"), makeToggle(tr("last fragment"), tr("accumulate"), m_grad),
         tr("last fragment: zero_grad() per fragment, only the last one reaches optimizer.step()"));
  addRow(g, 0, 1, tr("Split"), makeToggle(tr("midpoint"), tr("median"), m_split),
         tr("midpoint of the bounding box (uneven halves) or median (equal point counts)"));
  addRow(g, 1, 1, tr("Axis"), makeToggle(tr("alternate x/y"), tr("longest"), m_axis),
         tr("alternate x/y (never z) or the longest extent of the fragment's box"));
  m_floor = new QSpinBox;
  m_floor->setRange(0, 10'000'000);
  m_floor->setSingleStep(100);
  m_floor->setSuffix(tr(" pts"));
  addRow(g, 2, 1, tr("Floor"), m_floor, tr("a spatial half with this many points or fewer is dropped"));
  row->addWidget(policy, 3);

  auto* work = group(tr("Workload"), g);
  m_scenes = new QSpinBox;
  m_scenes->setRange(1, 10'000'000);
  m_scenes->setGroupSeparatorShown(true);
  addRow(g, 0, 0, tr("Scenes"), m_scenes, tr("scenes per epoch"));
  m_batch = new QSpinBox;
  m_batch->setRange(1, 4096);
  addRow(g, 1, 0, tr("Batch"), m_batch, tr("scenes stacked per batch"));
  m_seed = new QSpinBox;
  m_seed->setRange(0, 2'000'000'000);
  addRow(g, 2, 0, tr("Seed"), m_seed, tr("scene sizes, order and point layout are a pure function of the seed"));
  QWidget* distRow = nullptr;
  auto* dh = inlineRow(distRow, 4);
  m_dist = new QComboBox;
  m_dist->addItems({tr("uniform 20k–300k"), tr("heavy-tailed"), tr("sizes file")});
  m_sizesButton = new QToolButton;
  m_sizesButton->setText(tr("File…"));
  dh->addWidget(m_dist, 1);
  dh->addWidget(m_sizesButton);
  addRow(g, 0, 1, tr("Sizes"), distRow, tr("points per scene: uniform, heavy-tailed, or one size per line from a file"));
  row->addWidget(work, 2);

  auto* mem = group(tr("Memory and faults"), g);
  QWidget* budgetRow = nullptr;
  auto* bh = inlineRow(budgetRow, 4);
  m_budgetSlider = new QSlider(Qt::Horizontal);
  m_budgetSlider->setRange(kSliderStepsPerGiB, 80 * kSliderStepsPerGiB);
  m_budgetSlider->setMinimumWidth(110);
  m_budget = new QDoubleSpinBox;
  m_budget->setRange(0.125, 1024);
  m_budget->setDecimals(2);
  m_budget->setSingleStep(0.25);
  m_budget->setSuffix(tr(" GiB"));
  bh->addWidget(m_budgetSlider, 1);
  bh->addWidget(m_budget);
  addRow(g, 0, 0, tr("Budget"), budgetRow, tr("usable GPU memory per attempt"));
  m_frag = new QSpinBox;
  m_frag->setRange(0, 65'536);
  m_frag->setSingleStep(64);
  m_frag->setSuffix(tr(" MiB"));
  addRow(g, 1, 0, tr("Fragmentation"), m_frag, tr("budget left unusable after an OOM until an attempt succeeds"));
  QWidget* bugRow = nullptr;
  auto* bugh = inlineRow(bugRow, 4);
  m_bugKind = new QComboBox;
  m_bugKind->addItems({tr("no bug"), tr("shape mismatch"), tr("NaN loss")});
  m_bugScene = new QSpinBox;
  m_bugScene->setRange(0, 10'000'000);
  m_bugScene->setPrefix(tr("in scene "));
  bugh->addWidget(m_bugKind, 1);
  bugh->addWidget(m_bugScene);
  addRow(g, 2, 0, tr("Bug"), bugRow, tr("a bug planted in one scene, raised by every attempt holding any of its points"));
  row->addWidget(mem, 3);

  auto* cmp = group(tr("Compare"), g);
  m_compare = new QComboBox;
  m_compare->addItems({tr("nothing"), tr("B: corrected"), tr("B: original")});
  addRow(g, 0, 0, tr("With"), m_compare, tr("run B: the same scenes and memory with another policy, stepping together"));
  g->setRowStretch(3, 1);
  row->addWidget(cmp, 1);

  setConfig(sim::default_config());
  setCompare(Compare::Corrected);

  connect(m_preset, &QComboBox::activated, this, [this](int i) {
    if (i == 0) applyPolicy(sim::preset_original());
    else if (i == 1) applyPolicy(sim::preset_corrected());
    edited();
  });
  connect(m_floor, &QSpinBox::valueChanged, this, [this] { policyEdited(); });
  for (QSpinBox* s : {m_scenes, m_batch, m_seed, m_frag, m_bugScene})
    connect(s, &QSpinBox::valueChanged, this, [this] { edited(); });
  connect(m_dist, &QComboBox::activated, this, [this](int i) {
    if (i == 2 && m_sizesFile.isEmpty()) {
      const QString path = QFileDialog::getOpenFileName(this, tr("Scene sizes"), {}, tr("Sizes (*.txt *.csv);;All files (*)"));
      if (path.isEmpty()) {
        m_dist->setCurrentIndex(0);
        return;
      }
      setSizesFile(path);
    }
    m_sizesButton->setEnabled(i == 2);
    m_scenes->setEnabled(i != 2);
    edited();
  });
  connect(m_sizesButton, &QToolButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Scene sizes"), {}, tr("Sizes (*.txt *.csv);;All files (*)"));
    if (!path.isEmpty()) setSizesFile(path);
  });
  connect(m_budgetSlider, &QSlider::valueChanged, this, [this](int v) {
    if (m_updating) return;
    const QSignalBlocker b(m_budget);
    m_budget->setValue(double(v) / kSliderStepsPerGiB);
    edited();
  });
  connect(m_budget, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    if (m_updating) return;
    const QSignalBlocker b(m_budgetSlider);
    m_budgetSlider->setValue(int(std::lround(v * kSliderStepsPerGiB)));
    edited();
  });
  connect(m_bugKind, &QComboBox::activated, this, [this] {
    m_bugScene->setEnabled(m_bugKind->currentIndex() != 0);
    edited();
  });
  connect(m_compare, &QComboBox::activated, this, [this] { edited(); });
}

void SimControls::edited() {
  if (!m_updating) emit configChanged();
}

void SimControls::applyPolicy(const sim::Policy& p) {
  m_updating = true;
  m_catch->button(p.catch_mode == sim::CatchMode::OomOnly ? 0 : 1)->setChecked(true);
  m_grad->button(p.grad == sim::GradMode::LastFragment ? 0 : 1)->setChecked(true);
  m_split->button(p.split == sim::SplitPoint::Midpoint ? 0 : 1)->setChecked(true);
  m_axis->button(p.axis == sim::AxisRule::AlternateXY ? 0 : 1)->setChecked(true);
  m_floor->setValue(int(p.floor));
  m_updating = false;
  updatePresetLabel();
}

void SimControls::policyEdited() {
  if (m_updating) return;
  updatePresetLabel();
  edited();
}

void SimControls::updatePresetLabel() {
  const std::string name = sim::preset_name(config().policy);
  const QSignalBlocker b(m_preset);
  m_preset->setCurrentIndex(name == "original" ? 0 : name == "corrected" ? 1 : 2);
}

sim::SimConfig SimControls::config() const {
  sim::SimConfig c = sim::default_config();
  c.policy.catch_mode = m_catch->checkedId() == 0 ? sim::CatchMode::OomOnly : sim::CatchMode::Everything;
  c.policy.grad = m_grad->checkedId() == 0 ? sim::GradMode::LastFragment : sim::GradMode::Accumulate;
  c.policy.split = m_split->checkedId() == 0 ? sim::SplitPoint::Midpoint : sim::SplitPoint::Median;
  c.policy.axis = m_axis->checkedId() == 0 ? sim::AxisRule::AlternateXY : sim::AxisRule::Longest;
  c.policy.floor = m_floor->value();
  c.scenes.dist = m_dist->currentIndex() == 0 ? sim::SizeDist::Uniform
                  : m_dist->currentIndex() == 1 ? sim::SizeDist::HeavyTailed
                                                : sim::SizeDist::File;
  c.scenes.count = c.scenes.dist == sim::SizeDist::File ? 0 : m_scenes->value();
  c.scenes.sizes_file = c.scenes.dist == sim::SizeDist::File ? m_sizesFile.toStdString() : std::string();
  c.batch = m_batch->value();
  c.seed = std::uint64_t(m_seed->value());
  c.memory.budget = std::int64_t(std::llround(m_budget->value() * kGiB));
  c.memory.fragmentation_penalty = std::int64_t(m_frag->value()) << 20;
  const int kind = m_bugKind->currentIndex();
  c.fault.kind = kind == 1 ? sim::BugKind::ShapeMismatch : kind == 2 ? sim::BugKind::NanLoss : sim::BugKind::None;
  c.fault.scene = kind == 0 ? -1 : m_bugScene->value();
  return c;
}

void SimControls::setConfig(const sim::SimConfig& c) {
  applyPolicy(c.policy);
  m_updating = true;
  m_scenes->setValue(int(std::min<std::int64_t>(c.scenes.count > 0 ? c.scenes.count : 64, m_scenes->maximum())));
  m_batch->setValue(int(c.batch));
  m_seed->setValue(int(c.seed));
  m_dist->setCurrentIndex(c.scenes.dist == sim::SizeDist::Uniform ? 0 : c.scenes.dist == sim::SizeDist::HeavyTailed ? 1 : 2);
  if (c.scenes.dist == sim::SizeDist::File) setSizesFile(QString::fromStdString(c.scenes.sizes_file));
  m_sizesButton->setEnabled(c.scenes.dist == sim::SizeDist::File);
  m_scenes->setEnabled(c.scenes.dist != sim::SizeDist::File);
  m_budget->setValue(double(c.memory.budget) / kGiB);
  m_budgetSlider->setValue(int(std::lround(double(c.memory.budget) / kGiB * kSliderStepsPerGiB)));
  m_frag->setValue(int(c.memory.fragmentation_penalty >> 20));
  m_bugKind->setCurrentIndex(c.fault.kind == sim::BugKind::ShapeMismatch ? 1 : c.fault.kind == sim::BugKind::NanLoss ? 2 : 0);
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

SimControls::Compare SimControls::compare() const { return Compare(m_compare->currentIndex()); }

void SimControls::setCompare(Compare c) {
  m_compare->setCurrentIndex(int(c));
  edited();
}

void SimControls::setPreset(const QString& name) {
  if (auto p = sim::preset_by_name(name.toStdString())) {
    applyPolicy(*p);
    edited();
  }
}

void SimControls::setSizesFile(const QString& path) {
  m_sizesFile = path;
  m_sizesButton->setText(path.isEmpty() ? tr("File…") : QFileInfo(path).fileName());
  m_sizesButton->setToolTip(path);
  if (!path.isEmpty() && m_dist->currentIndex() != 2) {
    const QSignalBlocker b(m_dist);
    m_dist->setCurrentIndex(2);
    m_sizesButton->setEnabled(true);
    m_scenes->setEnabled(false);
  }
  edited();
}

void SimControls::setBudgetGiB(double gib) { m_budget->setValue(gib); }

}  // namespace oomscope::ui
