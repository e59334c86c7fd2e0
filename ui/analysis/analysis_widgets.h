#pragma once
// Small widgets the analysis pages share: provenance chips, section titles, muted notes, message banners.

#include <QString>

#include "core/analysis/diagnosis/diagnosis_types.h"

class QLabel;
class QWidget;

namespace oomscope::ui {

// A rounded coloured label "derived" / "read" / "measured" with a tooltip that explains it.
QLabel* makeProvenanceChip(analysis::Provenance provenance, QWidget* parent);
QLabel* makeSectionTitle(const QString& text, QWidget* parent);
// Word-wrapped, selectable, in the palette's placeholder colour.
QLabel* makeNote(const QString& text, QWidget* parent);
// The bold, selectable one-line summary above a chart.
QLabel* makeHeading(QWidget* parent);
// A banner for errors (red) or progress (neutral); hidden while its text is empty.
QLabel* makeBanner(QWidget* parent, bool error);
void setBannerText(QLabel* banner, const QString& text);
// A key figure: the number, what it is, and its provenance chip; the tooltip carries exact bytes.
QWidget* makeFigureTile(const QString& value, const QString& caption, analysis::Provenance provenance,
                        const QString& tooltip, QWidget* parent);

}  // namespace oomscope::ui
