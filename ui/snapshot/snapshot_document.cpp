#include "ui/snapshot/snapshot_document.h"

#include <sstream>

#include "core/allocator/replayed_savings.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/snapshot/snapshot_text.h"
#include "core/snapshot/timeline_reports.h"
#include "core/util/error.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

const snapshot::DeviceAnalysis* SnapshotDocument::deviceAnalysis() const {
  if (!report) return nullptr;
  for (const auto& d : report->devices)
    if (d.device == device) return &d;
  return nullptr;
}

namespace {

// A snapshot's report and text as `oomscope-cli report [--categories FILE]` makes them.
void analyse(SnapshotDocument& doc, const std::stop_token& stop) {
  snapshot::SnapshotReport report = snapshot::analyse_snapshot(*doc.snap, 200, doc.rules.get());
  allocator::apply_replayed_savings(*doc.snap, report, stop);  // as `oomscope-cli report` words it
  doc.report = std::make_shared<const snapshot::SnapshotReport>(std::move(report));
  std::ostringstream text;
  snapshot::write_snapshot_text(text, *doc.snap, *doc.report, 25);
  doc.reportText = text.str();
}

}  // namespace

std::shared_ptr<const SnapshotDocument> recategorised(const SnapshotDocument& doc,
                                                      std::shared_ptr<const snapshot::CategoryRules> rules,
                                                      const std::stop_token& stop) {
  if (!doc.snap) throw Error(ErrorKind::InvalidArgument, doc.path.toStdString(), "is not a PyTorch snapshot");
  auto out = std::make_shared<SnapshotDocument>(doc);
  out->rules = std::move(rules);
  if (stop.stop_requested()) throw Cancelled();
  analyse(*out, stop);
  return out;
}

std::shared_ptr<const SnapshotDocument> loadSnapshotDocument(
    const QString& path, ProgressSink& progress, const std::stop_token& stop,
    std::shared_ptr<const snapshot::CategoryRules> rules) {
  auto doc = std::make_shared<SnapshotDocument>();
  doc->path = path;
  const std::string p = path.toStdString();
  const snapshot::FileKindInfo kind = snapshot::detect_file_kind(p);
  doc->kind = kind.kind;
  std::ostringstream text;
  switch (kind.kind) {
    case snapshot::FileKind::TorchSnapshot: {
      doc->snap = snapshot::read_snapshot(p, progress, stop);
      progress.report(1.0, "analysing");
      doc->rules = std::move(rules);
      doc->device = snapshot::default_device(*doc->snap);
      analyse(*doc, stop);
      return doc;
    }
    case snapshot::FileKind::ChromeTrace: {
      doc->kineto = snapshot::read_kineto_trace(p, progress, stop);
      snapshot::require_memory_events(*doc->kineto);
      snapshot::write_kineto_text(text, *doc->kineto);
      if (!doc->kineto->devices.empty()) {
        const auto& d = doc->kineto->devices.front();
        doc->seriesTitle =
            safeText(d.label + (d.baseline ? " allocated bytes" : " running sum of [memory] Bytes"));
        for (const auto& pt : d.series)
          doc->series.push_back({(pt.ts_us - d.first_ts_us) / 1e6, static_cast<double>(pt.live_bytes)});
        for (const auto& o : d.ooms) doc->oomTimes.push_back((o.ts_us - d.first_ts_us) / 1e6);
      }
      break;
    }
    case snapshot::FileKind::HtaRawTimeline: {
      doc->hta = snapshot::read_hta_raw(p);
      snapshot::write_hta_text(text, *doc->hta);
      doc->seriesTitle = QStringLiteral("live bytes (raw memory timeline)");
      for (const auto& s : doc->hta->steps)
        doc->series.push_back(
            {static_cast<double>(s.t_ns - doc->hta->first_t_ns) / 1e9, static_cast<double>(s.total)});
      break;
    }
    case snapshot::FileKind::Pprof:
      doc->pprof = snapshot::read_pprof(p);
      snapshot::write_pprof_text(text, *doc->pprof, 50);
      break;
    case snapshot::FileKind::Log:
      // Text: a log of a failed run is read by the Log window, which the main window opens for it.
      throw Error(ErrorKind::NotACapture, p,
                  "is text, not a snapshot, trace or memory profile; a log of a failed run opens in a Log "
                  "window (File > Open in the main window)");
    case snapshot::FileKind::Unknown:
      snapshot::throw_unknown_kind(p, kind);
    case snapshot::FileKind::XSpace:
      throw Error(ErrorKind::InvalidArgument, p, "is an XLA capture; open it in the main window");
  }
  doc->reportText = text.str();
  return doc;
}

}  // namespace oomscope::ui
