#pragma once
// A window for one PyTorch allocator snapshot, Kineto trace, raw memory timeline or JAX memory profile
// (the main window hands these over: MainWindow::openInOwnWindow; logs go to LogWindow). Loading runs on a
// worker thread with progress and Cancel. Pages for a snapshot: Timeline (Active Memory Timeline; clicking
// selects an event), Allocator State at the selected event, Top Allocations at the peak with their frames,
// Diagnosis (the report), What if (the allocator replay under another capacity and settings, when the device
// has a trace), Overlay (a second run read from a file, both timelines on one axis above the site and
// category table) and Diff against another open snapshot. It opens on the OOM entry when the trace has one,
// else on the peak. The other formats get a memory-over-time chart and their report.
// Categories > Load Category Rules reads a user's rules file (docs/categories.md) and categorises the
// snapshot again on a worker; the file is remembered for the session (windows opened later use it too), and
// a file that cannot be used is named with its line in the Top Allocations page and the status bar.

#include <QMainWindow>
#include <QPointer>
#include <memory>

#include "ui/snapshot/snapshot_document.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace oomscope::ui {

class AllocatorStateWidget;
class CategoryRulesControl;
class JobTracker;
class DiffModel;
class MemoryTimelineWidget;
class OverlayPage;
class SegmentStateModel;
class SeriesWidget;
class TopAllocationsModel;
class WhatIfPanel;

class SnapshotWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit SnapshotWindow(QWidget* parent = nullptr);
  ~SnapshotWindow() override;

  // A new window (deleted when closed) that loads `path`.
  static SnapshotWindow* openFile(const QString& path);
  // Every open window (for the Diff page's list).
  static QList<SnapshotWindow*> openWindows();

  void load(const QString& path);  // on a worker; emits loaded or failed
  void cancel();
  void setDocument(std::shared_ptr<const SnapshotDocument> doc);  // shows it now (tests)
  const std::shared_ptr<const SnapshotDocument>& document() const { return m_doc; }

  // Selects a raw trace index: the Allocator State page follows.
  void selectEvent(std::int64_t index);
  std::int64_t selectedEvent() const { return m_selected; }
  // Compares with another window's snapshot on the Diff page (nullptr clears).
  void compareWith(SnapshotWindow* other);

  // Categorises the snapshot again on a worker with the rules of `path` first ("" = the built-in rules
  // only) and, once that worked, remembers `path` for the session; emits categoriesApplied or
  // categoryRulesFailed (with the file, the line and the problem, as the CLI words it).
  void applyCategoryRules(const QString& path);
  // The rules file of this session ("" = none): a window opened later categorises with it.
  static QString sessionCategoryRules();
  CategoryRulesControl* categories() const { return m_categories; }

  QTabWidget* tabs() const { return m_tabs; }
  MemoryTimelineWidget* timeline() const { return m_timeline; }
  AllocatorStateWidget* stateWidget() const { return m_state; }
  TopAllocationsModel* topModel() const { return m_topModel; }
  SegmentStateModel* segmentModel() const { return m_segmentModel; }
  DiffModel* diffModel() const { return m_diffModel; }
  QLabel* stateHeader() const { return m_stateHeader; }
  QPlainTextEdit* diffText() const { return m_diffText; }
  QComboBox* diffChoice() const { return m_diffChoice; }
  WhatIfPanel* whatIfPanel() const { return m_whatIf; }
  OverlayPage* overlayPage() const { return m_overlayPage; }

 signals:
  void loaded();
  void failed(const QString& message);
  void categoriesApplied();
  void categoryRulesFailed(const QString& message);

 private:
  QWidget* buildTimelinePage();
  QWidget* buildStatePage();
  QWidget* buildTopPage();
  QWidget* buildDiffPage();
  void refreshDiffChoices();
  void loadEnded(const QString& message);  // failed or cancelled: says so in the status bar, emits failed
  void showCategories(std::shared_ptr<const SnapshotDocument> doc);  // the new categories, same snapshot

  std::shared_ptr<const SnapshotDocument> m_doc;
  JobTracker* m_load = nullptr;                  // reading the file: generations, progress, Cancel
  CategoryRulesControl* m_categories = nullptr;  // the Categories menu, its worker and its line
  std::int64_t m_selected = -1;
  QTabWidget* m_tabs = nullptr;
  QLabel* m_status = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
  QLabel* m_timelineHeader = nullptr;
  MemoryTimelineWidget* m_timeline = nullptr;
  QSpinBox* m_drawn = nullptr;
  QLabel* m_stateHeader = nullptr;
  AllocatorStateWidget* m_state = nullptr;
  SegmentStateModel* m_segmentModel = nullptr;
  TopAllocationsModel* m_topModel = nullptr;
  QTableView* m_topView = nullptr;
  QPlainTextEdit* m_frames = nullptr;
  QPlainTextEdit* m_report = nullptr;
  SeriesWidget* m_series = nullptr;
  QComboBox* m_diffChoice = nullptr;
  DiffModel* m_diffModel = nullptr;
  QPlainTextEdit* m_diffText = nullptr;
  QWidget* m_timelinePage = nullptr;
  QWidget* m_statePage = nullptr;
  QWidget* m_topPage = nullptr;
  QWidget* m_diffPage = nullptr;
  QWidget* m_seriesPage = nullptr;
  WhatIfPanel* m_whatIf = nullptr;       // the What if page: snapshots with a trace on the shown device
  OverlayPage* m_overlayPage = nullptr;  // a second run on one axis with the gap explained
};

}  // namespace oomscope::ui
