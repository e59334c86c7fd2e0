#pragma once
// The Allocators table under the analysis' range selection. A time range re-scopes the table to the allocator
// events inside the range (the analysis' own figures, computed on its worker); a program-order range selects
// no time, so the table keeps the whole capture and says why. Clearing the range brings the capture's rows
// back. The banner above the table says which range it covers, with one click to clear it.

#include <QObject>

namespace oomscope::ui {

class AllocatorTableModel;
class AnalysisPages;
class CaptureSession;
class RangeBanner;
class TablePage;

class AllocatorsRange : public QObject {
  Q_OBJECT

 public:
  // Puts the banner on top of page; model is the page's table. Follows analysis' results for the capture
  // session shows.
  AllocatorsRange(TablePage* page, AllocatorTableModel* model, AnalysisPages* analysis,
                  const CaptureSession* session, QObject* parent);

  RangeBanner* banner() const { return m_banner; }

 private:
  void syncWithRange();

  AllocatorTableModel* m_model = nullptr;
  AnalysisPages* m_analysis = nullptr;
  const CaptureSession* m_session = nullptr;
  RangeBanner* m_banner = nullptr;
};

}  // namespace oomscope::ui
