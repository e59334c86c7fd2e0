#include "ui/analysis/diagnosis_page.h"

#include <QClipboard>
#include <QComboBox>
#include <QFrame>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

#include "core/analysis/report/fix_outcome.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/analysis_widgets.h"
#include "ui/analysis/diagnosis_key_figures.h"
#include "ui/analysis/range_banner.h"
#include "ui/models/report_format.h"
#include "ui/models/report_summary_models.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

// Text from the analysis carries names from the capture: made safe (safe_text_qt.h), then escaped as HTML.
QString html(const std::string& s) { return safeText(s).toHtmlEscaped(); }

QString sentence(const std::string& s) {
  QString text = safeText(s);
  if (!text.isEmpty()) text[0] = text[0].toUpper();
  return text;
}

QString fixHtml(const analysis::Fix& f, const analysis::HostReport& r) {
  QString out = QStringLiteral("<b>Fix:</b> %1<br>").arg(html(f.action));
  QStringList parts;
  if (f.saving_bytes) {
    parts << QStringLiteral("<b>saves ~%1</b> %2")
                 .arg(bytesText(*f.saving_bytes), provenanceChipHtml(analysis::Provenance::Derived));
    if (!f.saving_note.empty()) parts.last() += QStringLiteral(" <i>(%1)</i>").arg(html(f.saving_note));
  } else {
    parts << (f.saving_note.empty() ? QStringLiteral("no byte saving")
                                    : QStringLiteral("<i>%1</i>").arg(html(f.saving_note)));
  }
  if (!f.cost.empty()) parts << QStringLiteral("<b>cost:</b> %1").arg(html(f.cost));
  // The words of the text report (fix_outcome.h), with the verdict coloured and the provenance as a chip.
  if (const std::optional<analysis::FixOutcome> after = analysis::fix_outcome(f, r)) {
    QString needs = html(after->needs_text());
    needs.replace(QStringLiteral(" [measured]"),
                  QLatin1Char(' ') + provenanceChipHtml(analysis::Provenance::Measured));
    QString part = QStringLiteral("then needs %1").arg(needs);
    if (after->fits)
      part += QStringLiteral(": <b style=\"color:%1\">%2</b> %3")
                  .arg(*after->fits ? QStringLiteral("#047857") : QStringLiteral("#b91c1c"),
                       html(after->verdict_text()), html(after->where_text()));
    parts << part + QLatin1Char(' ') + provenanceChipHtml(analysis::Provenance::Derived);
  }
  return out + parts.join(QStringLiteral(" &nbsp;\u00b7&nbsp; "));
}

QWidget* makeFindingCard(const analysis::DiagnosisLine& line, const analysis::HostReport& report,
                         QWidget* parent) {
  auto* card = new QFrame(parent);
  card->setObjectName(QStringLiteral("findingCard"));
  card->setFrameShape(QFrame::StyledPanel);
  card->setStyleSheet(
      QStringLiteral("QFrame#findingCard { background: palette(base); border: 1px solid palette(mid); "
                     "border-radius: 6px; }"));
  card->setProperty("rule", QString::fromStdString(line.rule));
  auto* grid = new QGridLayout(card);
  grid->setContentsMargins(12, 10, 12, 10);
  grid->setHorizontalSpacing(12);
  grid->setVerticalSpacing(4);
  grid->addWidget(makeProvenanceChip(line.provenance, card), 0, 0, Qt::AlignTop);
  auto* finding = new QLabel(QStringLiteral("<b>%1</b>").arg(sentence(line.finding).toHtmlEscaped()), card);
  finding->setWordWrap(true);
  finding->setTextInteractionFlags(Qt::TextSelectableByMouse);
  grid->addWidget(finding, 0, 1);
  int row = 1;
  const auto addRow = [&](const QString& text) {
    auto* label = new QLabel(text, card);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(label, row++, 1);
    return label;
  };
  if (!line.cause.empty()) addRow(QStringLiteral("<b>Cause:</b> %1").arg(html(line.cause)));
  for (const analysis::Fix& f : line.fixes) {
    QLabel* fix = addRow(fixHtml(f, report));
    fix->setStyleSheet(QStringLiteral(
        "QLabel { border: none; border-left: 3px solid #60a5fa; padding-left: 8px; margin-top: 2px; }"));
    if (f.saving_bytes)
      fix->setToolTip(QStringLiteral("Estimated saving: %1").arg(bytesWithExact(*f.saving_bytes)));
  }
  if (!line.confirm.empty()) {
    QLabel* confirm = addRow(QStringLiteral("<i>%1</i>").arg(html(line.confirm)));
    confirm->setForegroundRole(QPalette::PlaceholderText);
  }
  grid->setColumnStretch(1, 1);
  if (line.depth == 0) return card;
  // Lines under another (the role split under "does not fit") are indented as a whole card.
  auto* holder = new QWidget(parent);
  auto* indent = new QHBoxLayout(holder);
  indent->setContentsMargins(28 * line.depth, 0, 0, 0);
  indent->addWidget(card);
  return holder;
}

}  // namespace

DiagnosisPage::DiagnosisPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("diagnosisPage"));
  m_moduleModel = new ReportModuleModel(this);

  auto* controls = new QHBoxLayout;
  controls->setSpacing(8);
  auto* moduleLabel = new QLabel(tr("&Module:"), this);
  m_modules = new QComboBox(this);
  m_modules->setObjectName(QStringLiteral("moduleSelector"));
  m_modules->setModel(m_moduleModel);
  m_modules->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_modules->setMinimumContentsLength(36);
  m_modules->setPlaceholderText(tr("no XLA modules in this capture"));
  m_modules->setToolTip(tr("The module whose plan is analysed; \u2605 marks the one the capture points at"));
  moduleLabel->setBuddy(m_modules);
  auto* poolLabel = new QLabel(tr("Would it fit in a &pool of"), this);
  m_capacity = new QLineEdit(this);
  m_capacity->setObjectName(QStringLiteral("capacityOverride"));
  m_capacity->setPlaceholderText(tr("e.g. 300 MiB"));
  m_capacity->setClearButtonEnabled(true);
  m_capacity->setMaximumWidth(140);
  m_capacity->setToolTip(tr("A pool size (B, KiB, MiB, GiB, TiB) to check the plan and the fixes against"));
  poolLabel->setBuddy(m_capacity);
  m_check = new QPushButton(tr("Check"), this);
  m_resetCapacity = new QPushButton(tr("Capture's pool"), this);
  m_resetCapacity->setToolTip(tr("Check against the pool size read from the capture again"));
  m_resetCapacity->setEnabled(false);
  m_copy = new QPushButton(tr("Copy as text"), this);
  m_copy->setToolTip(tr("Copy the whole report as `oomscope-cli report` prints it"));
  controls->addWidget(moduleLabel);
  controls->addWidget(m_modules, 1);
  controls->addSpacing(12);
  controls->addWidget(poolLabel);
  controls->addWidget(m_capacity);
  controls->addWidget(m_check);
  controls->addWidget(m_resetCapacity);
  controls->addSpacing(12);
  controls->addWidget(m_copy);

  m_status = makeBanner(this, false);
  m_error = makeBanner(this, true);
  m_error->setObjectName(QStringLiteral("errorBanner"));

  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(20, 12, 20, 16);
  layout->setSpacing(8);
  auto* verdictRow = new QHBoxLayout;
  m_verdict = new QLabel(content);
  m_verdict->setObjectName(QStringLiteral("verdict"));
  m_verdict->setWordWrap(true);
  m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_verdict->setTextFormat(Qt::PlainText);
  QFont big = m_verdict->font();
  big.setPointSizeF(big.pointSizeF() * 1.3);
  big.setBold(true);
  m_verdict->setFont(big);
  m_verdictTag = makeProvenanceChip(analysis::Provenance::Derived, content);
  verdictRow->addWidget(m_verdict, 1);
  verdictRow->addWidget(m_verdictTag, 0, Qt::AlignTop);
  m_pool = makeNote(QString(), content);
  m_findings = new QWidget(content);
  m_findingsLayout = new QVBoxLayout(m_findings);
  m_findingsLayout->setContentsMargins(0, 0, 0, 0);
  m_findingsLayout->setSpacing(8);
  layout->addLayout(verdictRow);
  layout->addWidget(m_pool);
  layout->addSpacing(6);
  layout->addWidget(m_findings);
  layout->addStretch(1);

  auto* scroll = new QScrollArea(this);
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);

  m_range = new RangeBanner(this);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(12, 10, 12, 0);
  outer->addLayout(controls);
  outer->addWidget(m_range);
  outer->addWidget(m_status);
  outer->addWidget(m_error);
  outer->addWidget(scroll, 1);

  connect(m_modules, qOverload<int>(&QComboBox::activated), this, [this](int row) {
    const QModelIndex idx = m_moduleModel->index(row, 0);
    if (idx.data(ReportModuleModel::IsDefaultRole).toBool())
      emit defaultModuleRequested();
    else
      emit programRequested(idx.data(ReportModuleModel::ProgramIdRole).toULongLong());
  });
  connect(m_capacity, &QLineEdit::returnPressed, this, &DiagnosisPage::submitCapacity);
  connect(m_check, &QPushButton::clicked, this, &DiagnosisPage::submitCapacity);
  connect(m_resetCapacity, &QPushButton::clicked, this, [this] {
    m_capacity->clear();
    setBannerText(m_error, {});
    emit capacityRequested(0);
  });
  connect(m_copy, &QPushButton::clicked, this, [this] { copyAsText(); });
  clear();
}

void DiagnosisPage::submitCapacity() {
  if (m_capacity->text().trimmed().isEmpty()) {
    setBannerText(m_error, {});
    emit capacityRequested(0);
    return;
  }
  QString why;
  const auto bytes = parseByteSize(m_capacity->text(), &why);
  if (!bytes) {
    setBannerText(m_error, tr("Pool size: %1.").arg(why));
    return;
  }
  setBannerText(m_error, {});
  emit capacityRequested(*bytes);
}

void DiagnosisPage::clear() {
  m_result.reset();
  m_moduleModel->clear();
  m_verdict->setText(tr("Open a capture to see what its peak is made of and what to try next."));
  m_verdictTag->hide();
  m_pool->clear();
  m_copy->setEnabled(false);
  m_modules->setEnabled(false);
  setBannerText(m_error, {});
  setBannerText(m_status, {});
  rebuildFindings();
}

void DiagnosisPage::setBusy(bool busy, const QString& what) {
  setBannerText(m_status, busy ? (what.isEmpty() ? tr("Analysing\u2026") : what) : QString());
}

void DiagnosisPage::showError(const QString& message) { setBannerText(m_error, message); }

QString DiagnosisPage::verdictText() const { return m_verdict->text(); }
QString DiagnosisPage::errorText() const { return m_error->isHidden() ? QString() : m_error->text(); }

QString DiagnosisPage::copyAsText() {
  if (!m_result) return {};
  if (QClipboard* clipboard = QGuiApplication::clipboard()) clipboard->setText(m_result->text);
  return m_result->text;
}

void DiagnosisPage::setResult(std::shared_ptr<const AnalysisResult> result) {
  if (!result) return clear();
  m_result = std::move(result);
  const analysis::HostReport& r = *m_result->report;
  // Refilled for every result: a time selection re-scopes each module's executions.
  m_moduleModel->setModules(r.modules, m_result->defaultModule, m_result->defaultChoice,
                            r.runtime.time_window.has_value());
  m_modules->setEnabled(m_moduleModel->rowCount() > 0);
  m_modules->setCurrentIndex(m_moduleModel->rowOfModule(r.module_index));
  m_verdict->setText(m_result->verdict);
  m_verdictTag->setVisible(r.plan.has_value());
  QString pool;
  if (r.capacity_bytes)
    pool = tr("Pool: %1, %2.").arg(bytesWithExact(*r.capacity_bytes), poolSource(r));
  else
    pool = tr("Pool size unknown: the capture has no allocator capacity. Enter one above to check the plan.");
  if (r.device_memory_bytes) pool += tr(" Device memory %1 (read).").arg(bytesText(*r.device_memory_bytes));
  m_pool->setText(pool);
  const bool overridden = r.capacity_source == analysis::CapacitySource::Given;
  m_resetCapacity->setEnabled(overridden);
  if (overridden && m_capacity->text().trimmed().isEmpty()) m_capacity->setText(bytesText(*r.capacity_bytes));
  if (!overridden) m_capacity->clear();
  m_copy->setEnabled(true);
  setBannerText(m_error, {});
  rebuildFindings();
}

void DiagnosisPage::rebuildFindings() {
  while (QLayoutItem* item = m_findingsLayout->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_findingCount = 0;
  if (!m_result) return;
  const analysis::HostReport& r = *m_result->report;
  auto* figures = new DiagnosisKeyFigures(r, m_findings);
  if (figures->count() > 0)
    m_findingsLayout->addWidget(figures);
  else
    delete figures;
  m_findingsLayout->addSpacing(4);
  m_findingsLayout->addWidget(makeSectionTitle(tr("Findings"), m_findings));
  if (r.diagnosis.empty())
    m_findingsLayout->addWidget(makeNote(r.plan
                                             ? tr("Nothing to report for this module.")
                                             : tr("Nothing to report: there is no module plan to diagnose."),
                                         m_findings));
  for (const analysis::DiagnosisLine& line : r.diagnosis) {
    m_findingsLayout->addWidget(makeFindingCard(line, r, m_findings));
    ++m_findingCount;
  }
  if (!r.limits.empty()) {
    m_findingsLayout->addSpacing(6);
    m_findingsLayout->addWidget(makeSectionTitle(tr("Known limits"), m_findings));
    QString list;
    for (const std::string& l : r.limits) list += QStringLiteral("\u2022 %1<br>").arg(html(l));
    QLabel* limits = makeNote(list, m_findings);
    limits->setTextFormat(Qt::RichText);
    m_findingsLayout->addWidget(limits);
  }
  if (!r.problems.empty()) {
    m_findingsLayout->addWidget(makeSectionTitle(tr("Problems met"), m_findings));
    QString list;
    for (const std::string& p : r.problems) list += QStringLiteral("\u2022 %1<br>").arg(html(p));
    QLabel* problems = makeNote(list, m_findings);
    problems->setTextFormat(Qt::RichText);
    m_findingsLayout->addWidget(problems);
  }
}

}  // namespace oomscope::ui
