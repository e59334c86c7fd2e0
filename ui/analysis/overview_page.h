#pragma once
// The Overview page: which file, which hosts and planes, the totals, and one or two sentences on the
// largest module and the busiest allocator.

#include <QWidget>
#include <vector>

#include "ui/models/capture_rows.h"

class QGridLayout;
class QLabel;
class QTableView;

namespace oomscope::ui {

class PlaneTableModel;

class OverviewPage : public QWidget {
  Q_OBJECT

 public:
  explicit OverviewPage(QWidget* parent = nullptr);

  void setSummary(const CaptureSummary& summary, std::vector<PlaneRow> planes);
  void clear();

  // For tests: the headline sentences as shown.
  QString headline() const;

 private:
  void setTile(int index, const QString& value, const QString& caption, const QString& tag,
               const QString& tooltip);

  QLabel* m_title = nullptr;
  QLabel* m_subtitle = nullptr;
  QLabel* m_headline = nullptr;
  QGridLayout* m_tiles = nullptr;
  QTableView* m_planesView = nullptr;
  PlaneTableModel* m_planes = nullptr;
  QLabel* m_problemsTitle = nullptr;
  QLabel* m_problems = nullptr;
};

}  // namespace oomscope::ui
