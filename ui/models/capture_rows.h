#pragma once
// Plain rows the table models show, and the summary the Overview page shows, built from a Capture.
//
// The models never look at a Capture themselves: they take these rows, so tests can feed them directly and
// other sources (a torch snapshot, a live session) can fill the same tables later.

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/analysis/runtime/runtime_types.h"
#include "core/capture/capture.h"

namespace oomscope::ui {

struct ModuleRow {
  QString name;
  quint64 programId = 0;
  bool hasPlan = false;  // false: the HloProto has no buffer assignment, the byte columns are unknown
  qint64 parameters = 0;
  qint64 donated = 0;
  qint64 outputs = 0;
  qint64 temp = 0;
  qint64 totalAllocation = 0;
};

struct AllocatorRow {
  QString name;
  qint64 allocations = 0;
  qint64 deallocations = 0;
  qint64 maxInUse = 0;
  qint64 lifetimePeak = 0;
  qint64 capacity = 0;
};

struct PlaneRow {
  QString name;
  qint64 lines = 0;
  qint64 events = 0;
};

struct CaptureSummary {
  QString path;
  quint64 fileSize = 0;
  QStringList hosts;
  qint64 planeCount = 0;
  qint64 eventCount = 0;
  qint64 moduleCount = 0;
  qint64 allocatorCount = 0;
  qint64 allocations = 0;
  qint64 deallocations = 0;
  qint64 retryCount = 0;
  qint64 retryTotalPs = 0;
  qint64 executionCount = 0;
  QString executionSource;                       // which spans were counted, e.g. "XLA GPU module host spans"
  std::optional<ModuleRow> largestModule;        // by total allocation, among modules with a plan
  std::optional<AllocatorRow> busiestAllocator;  // by max in use
  QStringList problems;                          // XSpace errors and warnings, modules that did not parse
};

std::vector<ModuleRow> moduleRows(const capture::Capture& capture);
std::vector<AllocatorRow> allocatorRows(const capture::Capture& capture);
// Rows of a time selection: the allocators with events inside it, their figures counted there.
std::vector<AllocatorRow> allocatorRows(std::span<const analysis::AllocatorRuntime> allocators);
std::vector<PlaneRow> planeRows(const capture::Capture& capture);
CaptureSummary summarize(const capture::Capture& capture);

// The summary's headline in one or two plain sentences (largest module, busiest allocator).
QString describeSummary(const CaptureSummary& summary);

}  // namespace oomscope::ui
