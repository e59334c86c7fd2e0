#include "ui/analysis/analysis_widgets.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/models/report_format.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

QLabel* makeProvenanceChip(analysis::Provenance provenance, QWidget* parent) {
  auto* chip = new QLabel(provenanceText(provenance), parent);
  chip->setObjectName(QStringLiteral("provenanceChip"));
  chip->setProperty("provenance", provenanceText(provenance));
  chip->setStyleSheet(QStringLiteral("QLabel { background-color: %1; color: white; border-radius: 8px; "
                                     "padding: 1px 8px; font-weight: 600; }")
                          .arg(provenanceColor(provenance).name()));
  chip->setToolTip(provenanceMeaning(provenance));
  chip->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
  return chip;
}

QLabel* makeSectionTitle(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  QFont font = label->font();
  font.setBold(true);
  font.setPointSizeF(font.pointSizeF() * 1.1);
  label->setFont(font);
  return label;
}

QLabel* makeHeading(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setTextFormat(Qt::PlainText);  // headings name modules and instructions: never markup
  QFont font = label->font();
  font.setBold(true);
  font.setPointSizeF(font.pointSizeF() * 1.1);
  label->setFont(font);
  return label;
}

QLabel* makeNote(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setForegroundRole(QPalette::PlaceholderText);
  return label;
}

QLabel* makeBanner(QWidget* parent, bool error) {
  auto* banner = new QLabel(parent);
  banner->setWordWrap(true);
  banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
  banner->setStyleSheet(
      error ? QStringLiteral("QLabel { background: #fdecea; color: #8a1c1c; border: 1px solid #f5c2c0; "
                             "border-radius: 4px; padding: 6px 10px; }")
            : QStringLiteral("QLabel { background: #eef4fb; color: #1f3b5c; border: 1px solid #c9dcf0; "
                             "border-radius: 4px; padding: 6px 10px; }"));
  banner->hide();
  return banner;
}

void setBannerText(QLabel* banner, const QString& text) {
  banner->setText(text);
  banner->setVisible(!text.isEmpty());
}

QWidget* makeFigureTile(const QString& value, const QString& caption, analysis::Provenance provenance,
                        const QString& tooltip, QWidget* parent) {
  auto* tile = new QFrame(parent);
  tile->setObjectName(QStringLiteral("figureTile"));
  tile->setStyleSheet(
      QStringLiteral("QFrame#figureTile { background: palette(base); border: 1px solid palette(mid); "
                     "border-radius: 6px; }"));
  auto* layout = new QVBoxLayout(tile);
  layout->setContentsMargins(12, 8, 12, 8);
  layout->setSpacing(2);
  auto* top = new QHBoxLayout;
  auto* number = new QLabel(value, tile);
  number->setTextFormat(Qt::PlainText);
  QFont font = number->font();
  font.setPointSizeF(font.pointSizeF() * 1.4);
  font.setBold(true);
  number->setFont(font);
  top->addWidget(number, 1);
  top->addWidget(makeProvenanceChip(provenance, tile), 0, Qt::AlignTop);
  layout->addLayout(top);
  auto* what = new QLabel(caption, tile);
  what->setTextFormat(Qt::PlainText);
  what->setWordWrap(true);
  what->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(what);
  tile->setToolTip(plainToolTip(tooltip));
  return tile;
}

}  // namespace oomscope::ui
