#pragma once
// How the analysis pages put the report's figures into words and colours, in one place so that the
// Diagnosis, Buffers, Plan and Timeline pages (and their tests) agree: byte figures, provenance chips,
// role colours, the one-sentence verdict, and the parsing of the "pool of X GiB" field.

#include <QColor>
#include <QString>
#include <cstdint>
#include <optional>

#include "core/analysis/diagnosis/diagnosis_types.h"
#include "core/analysis/plan/plan.h"
#include "core/analysis/report/report.h"
#include "core/analysis/runtime/runtime_types.h"

namespace oomscope::ui {

// "497 MiB" (binary units, 3 significant figures) and "521,142,272 bytes".
QString bytesText(qint64 bytes);
QString exactBytesText(qint64 bytes);
// "497 MiB (521,142,272 bytes)", for tooltips.
QString bytesWithExact(qint64 bytes);

// "measured", "read", "derived", and the chip colour of each (white text reads on all three).
QString provenanceText(analysis::Provenance provenance);
QColor provenanceColor(analysis::Provenance provenance);
// What each provenance means, one sentence, for the chip's tooltip.
QString provenanceMeaning(analysis::Provenance provenance);
// A chip as rich text ("<span style=...>derived</span>") for labels that mix text and tags.
QString provenanceChipHtml(analysis::Provenance provenance);

// "forward-kept", ... and what the role means for the user ("activations kept for the backward pass").
QString roleText(analysis::BufferRole role);
QString roleMeaning(analysis::BufferRole role);
QColor roleColor(analysis::BufferRole role);

// "jit_loss_fn(17)".
QString moduleLabel(const analysis::ModuleRow& row);
// Why the default module was chosen ("largest executed module").
QString choiceText(analysis::ModuleChoice choice);

// Percent with the precision a reader needs: "0.2 %", "8.5 %", "61 %", "166 %".
QString percentText(double percent);

// The one-sentence verdict for the analysed module: what its plan needs against the pool, and what the
// largest part of its peak is. Never empty: a capture without modules says so.
QString reportVerdict(const analysis::HostReport& report);
// Where the pool figure comes from ("capacity of GPU_0_bfc, read from the capture", "your override").
QString poolSource(const analysis::HostReport& report);

// Parses "300 MiB", "2.79GiB", "1.5 g", "3e9", "4096" (bytes) with the CLI's --capacity units: k/m/g/t and
// KiB..TiB are binary, KB..TB decimal. nullopt with *error set for anything else, zero or negative.
std::optional<qint64> parseByteSize(const QString& text, QString* error = nullptr);

}  // namespace oomscope::ui
