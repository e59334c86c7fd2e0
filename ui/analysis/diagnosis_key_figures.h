#pragma once
// The Diagnosis page's row of key figures for one report: the planned peak (and the other phase's peak), the
// temp block, the parameters, the highest in use, the analysed module's executions and the AllocatorRetry
// waits, each a tile with its measured/read/derived chip (makeFigureTile). With a time selection the
// runtime tiles say they count inside it. It shows what the report holds; it computes nothing.

#include <QWidget>

#include "core/analysis/report/report.h"

namespace oomscope::ui {

class DiagnosisKeyFigures : public QWidget {
  Q_OBJECT

 public:
  DiagnosisKeyFigures(const analysis::HostReport& report, QWidget* parent = nullptr);

  int count() const { return m_count; }  // tiles shown; 0 when the report has none of the figures

 private:
  int m_count = 0;
};

}  // namespace oomscope::ui
