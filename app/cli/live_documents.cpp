// The end-of-session documents of the live commands (live_documents.h).

#include "app/cli/live_documents.h"

#include <chrono>
#include <memory>
#include <thread>

#include "app/cli/forecast_format.h"
#include "app/cli/live_format.h"
#include "core/live/client/replay.h"
#include "core/live/client/session.h"
#include "core/util/error.h"

namespace oomscope::cli {

namespace {

Rendered session_document(const live::LiveSession& session, std::string text_head) {
  const auto [table, summary] = session.read([](const live::Store& s, const live::AlertEngine& al) {
    return std::pair(live_table_json(s), live_summary(s, al));
  });
  // The text ends as `watch` and `replay` end theirs: the rank summary, then each rank's OOM forecast.
  const std::string forecasts = session.read_forecasts(
      [](const live::Store& s, const live::ForecastTracker& f) { return forecast_summary(s, f); });
  return Rendered{std::move(text_head) + summary + forecasts, nlohmann::ordered_json::parse(table)};
}

}  // namespace

Rendered replay_document(const std::string& path, const std::vector<live::AlertRule>& rules,
                         const std::stop_token& stop) {
  live::LiveSession session;
  for (const auto& r : rules) session.add_rule(r);
  const live::ReplayInfo info = live::replay_recording(path, session, stop);
  Rendered out = session_document(session, path + ": " + std::to_string(info.samples) + " samples, " +
                                               std::to_string(info.records) + " records, " +
                                               std::to_string(info.file_bytes) + " bytes\n");
  if (info.truncated) out.text += path + ": " + info.note + "\n";
  return out;
}

Rendered attach_document(const WatchSources& sources, const std::vector<live::AlertRule>& rules,
                         ProgressSink& progress, const std::stop_token& stop) {
  live::LiveSession session;
  for (const auto& r : rules) session.add_rule(r);
  std::unique_ptr<live::LiveClient> client;
  std::unique_ptr<live::PrometheusSource> source;
  if (sources.prometheus.empty())
    client = std::make_unique<live::LiveClient>(sources.endpoints, session, sources.client);
  else
    source = std::make_unique<live::PrometheusSource>(sources.prometheus, session, sources.prom);
  if (client) client->start();
  if (source) source->start();
  const auto stop_sources = [&] {
    if (client) client->stop();
    if (source) source->stop();
  };
  const auto start = std::chrono::steady_clock::now();
  const std::chrono::duration<double> duration(sources.duration_s);
  std::string error;
  for (;;) {
    const auto gone = std::chrono::steady_clock::now() - start;
    if (gone >= duration) break;
    if (stop.stop_requested()) {
      stop_sources();
      throw Cancelled();
    }
    if (source) {  // as watch does: a server that never gave a rank ends the session with its error
      const live::PromStatus st = source->status();
      if (!st.error.empty() && st.ranks == 0) {
        error = st.error;
        break;
      }
    }
    progress.report(std::chrono::duration<double>(gone) / duration, "attached");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stop_sources();
  if (!error.empty()) throw Error(ErrorKind::Io, sources.prometheus, error);
  return session_document(session, "");
}

}  // namespace oomscope::cli
