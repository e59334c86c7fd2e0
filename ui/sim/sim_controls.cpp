// SimControls: the widgets and their layout. Reading and writing a SimConfig is in sim_controls_config.cpp.
#include "ui/sim/sim_controls.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QToolButton>
#include <charconv>
#include <cmath>
#include <utility>

#include "ui/sim/enum_combo.h"

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

QDoubleSpinBox* doubleSpin(double lo, double hi, int decimals, const QString& suffix, double step) {
  auto* s = new QDoubleSpinBox;
  s->setRange(lo, hi);
  s->setDecimals(decimals);
  s->setSuffix(suffix);
  s->setSingleStep(step);
  return s;
}

}  // namespace

QWidget* SimControls::makeToggle(const QList<QPair<QString, int>>& options, QButtonGroup*& group) {
  QWidget* w = nullptr;
  auto* h = inlineRow(w, 0);
  group = new QButtonGroup(w);
  group->setExclusive(true);
  for (const auto& [text, id] : options) {
    auto* btn = new QToolButton;
    btn->setText(text);
    btn->setCheckable(true);
    btn->setAutoRaise(false);
    btn->setToolButtonStyle(Qt::ToolButtonTextOnly);
    btn->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    btn->setObjectName(QStringLiteral("segment"));
    group->addButton(btn, id);
    h->addWidget(btn);
  }
  group->button(options.front().second)->setChecked(true);
  connect(group, &QButtonGroup::idClicked, this, [this] { policyEdited(); });
  return w;
}

SimControls::SimControls(QWidget* parent) : QWidget(parent) {
  setStyleSheet(QStringLiteral(
      "QToolButton#segment { padding: 2px 6px; border: 1px solid #b8bfc7; background: #f7f8fa; }"
      "QToolButton#segment:checked { background: #1f6feb; color: white; border-color: #1f6feb; }"));
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->setSpacing(8);
  row->addWidget(buildPolicy(), 4);
  row->addWidget(buildWorkload(), 3);
  // Memory and time share one column as tabs, so that every option fits a 1600-pixel window.
  auto* models = new QTabWidget;
  models->setObjectName(QStringLiteral("modelTabs"));
  models->setDocumentMode(true);
  for (auto [w, name] : {std::pair{buildMemory(), tr("Memory")}, std::pair{buildTime(), tr("Time model")}}) {
    auto* box = static_cast<QGroupBox*>(w);
    box->setTitle({});
    box->setFlat(true);
    models->addTab(box, name);
  }
  row->addWidget(models, 3);

  setConfig(sim::default_config());
  setCompare(Compare::Corrected);
  connectEdits();
}

QWidget* SimControls::buildPolicy() {
  QGridLayout* g = nullptr;
  auto* box = group(tr("Policy"), g);
  m_preset = new QComboBox;
  m_preset->setObjectName(QStringLiteral("preset"));
  addEnumItem(m_preset, tr("original"), sim::Preset::Original);
  addEnumItem(m_preset, tr("corrected"), sim::Preset::Corrected);
  addEnumItem(m_preset, tr("custom"), sim::Preset::Custom);
  addRow(g, 0, 0, tr("Preset"), m_preset,
         tr("original: the reference's handler; corrected: every defect fixed"));
  addRow(
      g, 1, 0, tr("Catch"),
      makeToggle({{tr("OOM only"), int(sim::CatchMode::OomOnly)},
                  {tr("everything"), int(sim::CatchMode::Everything)},
                  {tr("RuntimeError"), int(sim::CatchMode::RuntimeError)}},
                 m_catch),
      tr("everything: a real bug is split and dropped silently, like an OOM. RuntimeError (the reference's "
         "earlier handler) still swallows a shape mismatch, but not a NaN-loss check"));
  addRow(
      g, 2, 0, tr("Gradient"),
      makeToggle({{tr("last fragment"), int(sim::GradMode::LastFragment)},
                  {tr("accumulate"), int(sim::GradMode::Accumulate)}},
                 m_grad),
      tr("last fragment: zero_grad() before every attempt, only the last attempt's gradient reaches "
         "optimizer.step() (none if it failed). accumulate: each fragment's loss scaled by its share of the "
         "batch, renormalised when points were dropped"));
  m_norm = new QComboBox;
  addEnumItem(m_norm, tr("BatchNorm"), sim::NormMode::BatchNorm);
  addEnumItem(m_norm, tr("frozen statistics"), sim::NormMode::Frozen);
  addEnumItem(m_norm, tr("GroupNorm"), sim::NormMode::GroupNorm);
  addRow(
      g, 3, 0, tr("Norm"), m_norm,
      tr("BatchNorm takes its statistics from each fragment (biased on spatial halves, degenerate on small "
         "ones); frozen running statistics or GroupNorm take none from the fragment"));
  addRow(g, 0, 1, tr("Split"),
         makeToggle(
             {{tr("midpoint"), int(sim::SplitPoint::Midpoint)}, {tr("median"), int(sim::SplitPoint::Median)}},
             m_split),
         tr("midpoint of the bounding box (uneven halves) or median (equal point counts)"));
  addRow(g, 1, 1, tr("Axis"),
         makeToggle({{tr("alternate x/y"), int(sim::AxisRule::AlternateXY)},
                     {tr("longest"), int(sim::AxisRule::Longest)}},
                    m_axis),
         tr("alternate x/y (never z) or the longest extent of the fragment's box"));
  QWidget* floorRow = nullptr;
  auto* fh = inlineRow(floorRow, 4);
  m_floor = new QSpinBox;
  m_floor->setRange(0, 10'000'000);
  m_floor->setSingleStep(100);
  m_floor->setSuffix(tr(" pts"));
  m_onFloor = new QComboBox;
  addEnumItem(m_onFloor, tr("drop"), sim::FloorAction::Drop);
  addEnumItem(m_onFloor, tr("keep"), sim::FloorAction::Keep);
  addEnumItem(m_onFloor, tr("raise"), sim::FloorAction::Raise);
  m_onFloor->setToolTip(
      tr("a half at the floor: dropped (the reference), trained anyway (if it still fails, "
         "its halves are dropped and counted), or an error that stops the run"));
  fh->addWidget(m_floor, 1);
  fh->addWidget(m_onFloor);
  addRow(g, 2, 1, tr("Floor"), floorRow, tr("a spatial half with this many points or fewer is at the floor"));
  m_axisNote = new QLabel;
  m_axisNote->setWordWrap(true);
  m_axisNote->setStyleSheet(QStringLiteral("color:#8a5a00"));
  m_axisNote->setToolTip(
      tr("Each median half holds half the points whatever the axis, so every attempt needs the "
         "same memory: longest vs alternate x/y changes only the boxes. Under a midpoint split "
         "longest gave the same attempts on the default workload and 3 % more on a heavy-tailed "
         "one (docs/simulator.md)."));
  g->addWidget(m_axisNote, 3, 2, 1, 2);
  return box;
}

QWidget* SimControls::buildWorkload() {
  QGridLayout* g = nullptr;
  auto* box = group(tr("Workload"), g);
  m_scenes = new QSpinBox;
  m_scenes->setRange(1, 10'000'000);
  m_scenes->setGroupSeparatorShown(true);
  addRow(g, 0, 0, tr("Scenes"), m_scenes, tr("scenes per epoch"));
  m_batch = new QSpinBox;
  m_batch->setRange(1, 65'536);
  addRow(g, 1, 0, tr("Batch"), m_batch, tr("scenes stacked per batch"));
  m_epochs = new QSpinBox;
  m_epochs->setRange(1, 1'000'000);
  addRow(g, 2, 0, tr("Epochs"), m_epochs, tr("passes over the scenes, each in its own order"));
  m_maxBatches = new QSpinBox;
  m_maxBatches->setRange(0, 100'000'000);
  m_maxBatches->setSpecialValueText(tr("all"));
  m_maxBatches->setGroupSeparatorShown(true);
  addRow(g, 3, 0, tr("Batches"), m_maxBatches,
         tr("stop after this many batches (a trainer's --steps); all: every batch"));
  QWidget* distRow = nullptr;
  auto* dh = inlineRow(distRow, 4);
  m_dist = new QComboBox;
  addEnumItem(m_dist, tr("uniform 20k–300k"), sim::SizeDist::Uniform);
  addEnumItem(m_dist, tr("heavy-tailed"), sim::SizeDist::HeavyTailed);
  addEnumItem(m_dist, tr("sizes file"), sim::SizeDist::File);
  m_sizesButton = new QToolButton;
  m_sizesButton->setText(tr("File…"));
  dh->addWidget(m_dist, 1);
  dh->addWidget(m_sizesButton);
  addRow(g, 0, 1, tr("Sizes"), distRow,
         tr("points per scene: uniform, heavy-tailed, or one size per line from a file"));
  m_seed = new QLineEdit;
  m_seed->setValidator(
      new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{1,20}")), m_seed));
  addRow(
      g, 1, 1, tr("Seed"), m_seed,
      tr("0 to 18446744073709551615: scene sizes, order and point layout are a pure function of the seed"));
  m_compare = new QComboBox;
  addEnumItem(m_compare, tr("nothing"), Compare::None);
  addEnumItem(m_compare, tr("B: corrected"), Compare::Corrected);
  addEnumItem(m_compare, tr("B: original"), Compare::Original);
  addRow(g, 2, 1, tr("Compare"), m_compare,
         tr("run B: the same scenes and memory with another policy, stepping together"));
  m_bugKind = new QComboBox;
  addEnumItem(m_bugKind, tr("no bug"), sim::BugKind::None);
  addEnumItem(m_bugKind, tr("shape mismatch"), sim::BugKind::ShapeMismatch);
  addEnumItem(m_bugKind, tr("NaN loss"), sim::BugKind::NanLoss);
  m_bugScene = new QSpinBox;
  m_bugScene->setRange(0, 10'000'000);
  m_bugScene->setPrefix(tr("scene "));
  QWidget* bugRow = nullptr;
  auto* bugh = inlineRow(bugRow, 4);
  bugh->addWidget(m_bugKind, 1);
  bugh->addWidget(m_bugScene);
  addRow(g, 3, 1, tr("Bug"), bugRow,
         tr("a bug planted in one scene, raised by every attempt holding any of its points"));
  return box;
}

QWidget* SimControls::buildMemory() {
  QGridLayout* g = nullptr;
  auto* box = group(tr("Memory"), g);
  QWidget* budgetRow = nullptr;
  auto* bh = inlineRow(budgetRow, 4);
  m_budgetSlider = new QSlider(Qt::Horizontal);
  m_budgetSlider->setRange(kSliderStepsPerGiB, 80 * kSliderStepsPerGiB);
  m_budgetSlider->setMinimumWidth(90);
  m_budget = doubleSpin(0.001, 1024, 3, tr(" GiB"), 0.25);
  bh->addWidget(m_budgetSlider, 1);
  bh->addWidget(m_budget);
  addRow(g, 0, 0, tr("Budget"), budgetRow, tr("usable GPU memory per attempt"));
  QWidget* perRow = nullptr;
  auto* ph = inlineRow(perRow, 4);
  m_bytesPerPoint = doubleSpin(0.001, 1024, 3, tr(" KiB/pt"), 1);
  m_fixed = doubleSpin(0, 1'048'576, 1, tr(" MiB fixed"), 64);
  ph->addWidget(m_bytesPerPoint, 1);
  ph->addWidget(m_fixed, 1);
  addRow(g, 1, 0, tr("Model"), perRow,
         tr("an attempt on n points needs fixed + n × bytes per point (activations and gradients per point; "
            "weights, optimizer state and workspace fixed)"));
  QWidget* fragRow = nullptr;
  auto* frh = inlineRow(fragRow, 4);
  m_frag = new QSpinBox;
  m_frag->setRange(0, 1'048'576);
  m_frag->setSingleStep(64);
  m_frag->setSuffix(tr(" MiB"));
  m_relief = new QSpinBox;
  m_relief->setRange(0, 100);
  m_relief->setPrefix(tr("relief "));
  m_relief->setSuffix(tr(" %"));
  frh->addWidget(m_frag, 1);
  frh->addWidget(m_relief, 1);
  addRow(
      g, 2, 0, tr("Fragmented"), fragRow,
      tr("left unusable by an OOM after a success; each empty_cache() (after every caught failure) returns "
         "the relief share of it. Relief 0: the retries may never fit again"));
  m_modelButton = new QToolButton;
  m_modelButton->setText(tr("Load calibrated model…"));
  m_modelButton->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  addRow(
      g, 3, 0, tr("From"), m_modelButton,
      tr("a model file written by oomscope-demo-trainer --calibrate (docs/sim-model-format.md): fills bytes "
         "per point, fixed bytes and the time model"));
  return box;
}

QWidget* SimControls::buildTime() {
  QGridLayout* g = nullptr;
  auto* box = group(tr("Time model"), g);
  QWidget* passRow = nullptr;
  auto* h = inlineRow(passRow, 4);
  m_forward = doubleSpin(0, 1'000'000, 3, tr(" ns"), 0.05);
  m_backward = doubleSpin(0, 1'000'000, 3, tr(" ns"), 0.05);
  h->addWidget(m_forward, 1);
  h->addWidget(m_backward, 1);
  addRow(g, 0, 0, tr("Fwd, bwd /pt"), passRow,
         tr("forward and backward pass per point; an OOM stops the forward "
            "pass where memory ran out"));
  m_attempt = doubleSpin(0, 100'000, 3, tr(" ms"), 0.5);
  addRow(g, 1, 0, tr("Per attempt"), m_attempt, tr("fixed cost of every attempt"));
  QWidget* retryRow = nullptr;
  auto* rh = inlineRow(retryRow, 4);
  m_hostCopy = doubleSpin(0, 1'000'000, 3, tr(" ns/pt"), 0.01);
  m_flush = doubleSpin(0, 100'000, 3, tr(" ms"), 0.5);
  rh->addWidget(m_hostCopy, 1);
  rh->addWidget(m_flush, 1);
  addRow(g, 2, 0, tr("Retry"), retryRow,
         tr("per retry: copying the fragment back to the host (per point), and "
            "empty_cache()"));
  m_shapeAt = doubleSpin(0, 100, 1, tr(" % of fwd"), 5);
  addRow(g, 3, 0, tr("Shape bug"), m_shapeAt, tr("how far into the forward pass a shape mismatch raises"));
  return box;
}

void SimControls::connectEdits() {
  connect(m_preset, &QComboBox::activated, this, [this] {
    if (const auto policy = sim::preset_policy(currentEnum<sim::Preset>(m_preset))) applyPolicy(*policy);
    edited();
  });
  connect(m_floor, &QSpinBox::valueChanged, this, [this] { policyEdited(); });
  for (QComboBox* c : {m_onFloor, m_norm})
    connect(c, &QComboBox::activated, this, [this] { policyEdited(); });
  for (QSpinBox* s : {m_scenes, m_batch, m_epochs, m_maxBatches, m_frag, m_relief, m_bugScene})
    connect(s, &QSpinBox::valueChanged, this, [this] { edited(); });
  for (QDoubleSpinBox* s :
       {m_bytesPerPoint, m_fixed, m_forward, m_backward, m_attempt, m_hostCopy, m_flush, m_shapeAt})
    connect(s, &QDoubleSpinBox::valueChanged, this, [this] { edited(); });
  connect(m_seed, &QLineEdit::editingFinished, this, [this] {
    const std::string t = m_seed->text().toStdString();
    std::uint64_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) {
      m_seed->setText(QString::number(m_seedValue));  // out of the 64-bit range: back to the last good seed
      return;
    }
    if (v == m_seedValue) return;
    m_seedValue = v;
    edited();
  });
  auto pickSizes = [this] {
    return QFileDialog::getOpenFileName(this, tr("Scene sizes"), {},
                                        tr("Sizes (*.txt *.csv);;All files (*)"));
  };
  connect(m_dist, &QComboBox::activated, this, [this, pickSizes] {
    const bool fromFile = currentEnum<sim::SizeDist>(m_dist) == sim::SizeDist::File;
    if (fromFile && m_sizesFile.isEmpty() && m_inlineSizes.empty()) {
      const QString path = pickSizes();
      if (path.isEmpty()) {
        selectEnum(m_dist, sim::SizeDist::Uniform);
        return;
      }
      setSizesFile(path);
    }
    m_sizesButton->setEnabled(fromFile);
    m_scenes->setEnabled(!fromFile);
    edited();
  });
  connect(m_sizesButton, &QToolButton::clicked, this, [this, pickSizes] {
    const QString path = pickSizes();
    if (!path.isEmpty()) setSizesFile(path);
  });
  connect(m_modelButton, &QToolButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Calibrated model"), {}, tr("Model (*.json);;All files (*)"));
    if (!path.isEmpty()) loadModelFile(path);
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
    m_bugScene->setEnabled(currentEnum<sim::BugKind>(m_bugKind) != sim::BugKind::None);
    edited();
  });
  connect(m_compare, &QComboBox::activated, this, [this] { edited(); });
}

void SimControls::edited() {
  if (!m_updating) emit configChanged();
}

}  // namespace oomscope::ui
