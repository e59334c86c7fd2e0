#include "ui/snapshot/whatif_view.h"

#include <QStringList>

#include "ui/models/report_format.h"

namespace oomscope::ui {

QString WhatIfChoice::describe() const {
  QStringList parts;
  for (const std::string& s : settings) parts << QString::fromStdString(s);
  if (capacity) parts << QStringLiteral("capacity %1").arg(bytesText(static_cast<qint64>(*capacity)));
  return parts.isEmpty() ? QStringLiteral("as recorded") : parts.join(QStringLiteral(", "));
}

WhatIfView buildWhatIfView(const snapshot::Snapshot& snap, std::int64_t device, const WhatIfChoice& choice,
                           ProgressSink& progress, const std::stop_token& stop) {
  allocator::WhatIfOptions o;
  o.capacity = choice.capacity;
  o.settings = choice.settings;
  o.device = device;
  o.one_scenario = true;
  o.keep_curves = true;
  WhatIfView v;
  v.choice = choice;
  v.result = allocator::run_whatif(snap, o, progress, stop);
  v.lastIndex = static_cast<std::int64_t>(v.result.trace_entries) - 1;
  const allocator::ReplayResult& rec = v.result.recorded.result;
  const allocator::CurvePoint start =
      rec.curve.empty() ? allocator::CurvePoint{-1, rec.start_reserved, rec.start_allocated, 0}
                        : rec.curve.front();
  v.recordedFull = allocator::recorded_curve(snap, v.result.device, start, stop);
  v.recorded = allocator::downsample_curve(v.recordedFull, v.lastIndex, -1, v.lastIndex, kWhatIfCurvePoints);
  allocator::ReplayResult& r = v.result.scenarios.front().result;
  v.replayedTo = static_cast<std::int64_t>(r.replayed) - 1;
  v.replayedFull = std::move(r.curve);
  v.replayed = allocator::downsample_curve(v.replayedFull, v.replayedTo, -1, v.lastIndex, kWhatIfCurvePoints);
  // The recorded replay's own curve is not drawn: the recording's is.
  v.result.recorded.result.curve = {};
  r.curve = {};
  return v;
}

allocator::WhatIfResult buildStandardScenarios(const snapshot::Snapshot& snap, std::int64_t device,
                                               ProgressSink& progress, const std::stop_token& stop) {
  allocator::WhatIfOptions o;
  o.device = device;
  return allocator::run_whatif(snap, o, progress, stop);
}

}  // namespace oomscope::ui
