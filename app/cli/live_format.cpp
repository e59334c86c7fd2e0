// Renderings of a live session (see live_format.h).

#include "app/cli/live_format.h"

#include <algorithm>
#include <cinttypes>
#include <nlohmann/json.hpp>

#include "app/cli/forecast_format.h"
#include "core/live/client/forecast.h"
#include "core/live/client/shape_churn.h"
#include "core/live/client/store.h"
#include "core/util/bytes.h"

namespace oomscope::cli {

namespace {

using live::Field;

std::string cell(const live::Sample* s, Field f) {
  if (!s || !s->has(f)) return "-";
  return live::field_is_bytes(f) ? format_bytes(s->get(f)) : std::to_string(s->get(f));
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() > w) s = s.substr(0, w - 1) + "~";
  s.resize(w, ' ');
  return s;
}

std::string seconds(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ns) / 1e9);
  return buf;
}

}  // namespace

std::string live_table(const live::Store& store) {
  std::string out = pad("rank", 24) + pad("status", 12) + pad("step", 9) + pad("allocated", 11) +
                    pad("reserved", 11) + pad("driver/dev", 11) + pad("gap", 11) + pad("headroom", 11) +
                    pad("rss", 11) + pad("ooms", 6) + pad("retries", 8) + pad("shapes", 8) + pad("bad", 5) +
                    "OOM forecast [derived]\n";
  const auto& ranks = store.ranks();
  for (const int i : live::ranks_by_headroom(store)) {  // closest to OOM first
    const live::RankSeries& r = ranks[static_cast<std::size_t>(i)];
    const live::Sample* s = r.last();
    std::string top = "-", gap = "-";
    if (s) {
      const Field f = s->has(Field::Driver) ? Field::Driver : Field::DeviceUsed;
      if (s->has(f)) {
        top = format_bytes(s->get(f));
        if (s->has(Field::Allocated)) gap = format_bytes(s->get(f) - s->get(Field::Allocated));
      }
    }
    const live::Headroom h = live::headroom(r);
    out += pad(r.label(i), 24) + pad(r.connected ? "up" : (r.samples.empty() ? "waiting" : "DOWN"), 12) +
           pad(cell(s, Field::Step), 9) + pad(cell(s, Field::Allocated), 11) +
           pad(cell(s, Field::Reserved), 11) + pad(top, 11) + pad(gap, 11) +
           pad(h.known ? format_bytes(h.bytes()) : "-", 11) + pad(cell(s, Field::Rss), 11) +
           pad(cell(s, Field::Ooms), 6) + pad(cell(s, Field::AllocRetries), 8) +
           pad(r.shapes.empty() ? "-" : std::to_string(r.shapes.back().distinct), 8) +
           pad(std::to_string(r.bad_lines), 5) + live::forecast_cell(live::forecast_rank(r)) + "\n";
    if (!r.connected && !r.status.empty()) out += "    " + r.status + "\n";
  }
  return out;
}

std::string live_table_json(const live::Store& store) {
  nlohmann::json rows = nlohmann::json::array();
  const auto& ranks = store.ranks();
  for (const int i : live::ranks_by_headroom(store)) {
    const live::RankSeries& r = ranks[static_cast<std::size_t>(i)];
    nlohmann::json row{{"index", i},
                       {"label", r.label(i)},
                       {"endpoint", r.endpoint},
                       {"status", r.connected ? "up" : (r.samples.empty() ? "waiting" : "down")},
                       {"reason", r.connected ? std::string() : r.status},
                       {"samples", r.samples.size()},
                       {"samples_thinned", r.thinned}};
    if (r.hello) {
      row["rank"] = r.hello->rank;
      row["host"] = r.hello->host;
      if (r.hello->total_bytes > 0) row["capacity"] = r.hello->total_bytes;
    }
    if (const live::Sample* s = r.last()) {
      nlohmann::json last{{"t", s->t}};
      for (std::size_t f = 0; f < live::kFieldCount; ++f)
        if (s->has(static_cast<Field>(f))) last[live::field_name(static_cast<Field>(f))] = s->values[f];
      row["last"] = std::move(last);
    }
    if (const live::Headroom h = live::headroom(r); h.known) row["headroom"] = h.bytes();
    if (!r.shapes.empty()) row["shapes"] = r.shapes.back().distinct;
    if (!r.samples.empty()) row["forecast"] = forecast_json(live::forecast_rank(r));
    rows.push_back(std::move(row));
  }
  return nlohmann::json{{"type", "table"}, {"t", store.last_t()}, {"ranks", std::move(rows)}}.dump(
             -1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

std::string live_alerts_text(const live::AlertEngine& alerts, std::size_t max) {
  std::string out;
  const auto& all = alerts.alerts();
  const std::size_t from = all.size() > max ? all.size() - max : 0;
  for (std::size_t i = from; i < all.size(); ++i) out += "ALERT " + all[i].message + "\n";
  return out;
}

std::string live_summary(const live::Store& store, const live::AlertEngine& alerts) {
  std::string out;
  const auto& ranks = store.ranks();
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const live::RankSeries& r = ranks[i];
    out += r.label(static_cast<int>(i)) + "\n";
    if (r.hello)
      out += "  agent: " + (r.hello->pid > 0 ? "pid " + std::to_string(r.hello->pid) + " " : std::string()) +
             "on " + r.hello->host + ", " + r.hello->backend +
             (r.hello->device.empty() ? "" : " (" + r.hello->device + ")") +
             (r.hello->framework.empty() ? "" : ", " + r.hello->framework) +
             (r.hello->total_bytes > 0 ? ", capacity " + format_bytes(r.hello->total_bytes) : "") + "\n";
    if (r.samples.empty()) {
      out += "  no samples" + (r.status.empty() ? std::string() : " (" + r.status + ")") + "\n";
      continue;
    }
    out += "  samples: " + std::to_string(r.samples.size()) + " over " +
           seconds(r.samples.back().t - r.samples.front().t);
    if (r.last()->has(Field::Step)) out += ", last step " + std::to_string(r.last()->get(Field::Step));
    out += "\n";
    if (r.thinned > 0)
      out += "  older samples thinned to bound memory: " + std::to_string(r.thinned) +
             " merged into their neighbours (peaks kept) up to " +
             seconds(r.thinned_until - r.samples.front().t) + " after the first\n";
    for (Field f : {Field::Allocated, Field::Reserved, Field::Driver, Field::DeviceUsed, Field::Rss}) {
      if (!((r.fields_seen >> static_cast<int>(f)) & 1u)) continue;
      std::int64_t peak = 0;
      for (const auto& s : r.samples) peak = std::max(peak, s.get(f));
      out += "  peak " + std::string(live::field_name(f)) + ": " + format_bytes(peak) + "\n";
    }
    for (Field f : {Field::Ooms, Field::AllocRetries})
      if (r.last()->has(f))
        out += "  " + std::string(live::field_name(f)) + ": " + std::to_string(r.last()->get(f)) + "\n";
    if (!r.shapes.empty()) {
      out += "  distinct input shapes: " + std::to_string(r.shapes.back().distinct) + "\n";
      std::vector<live::Shape> all;
      for (const auto& sh : r.shapes) all.insert(all.end(), sh.fresh.begin(), sh.fresh.end());
      if (!all.empty()) {
        std::string text =
            live::shape_churn_text(live::analyse_shape_churn(std::move(all), r.shapes.back().distinct));
        for (std::size_t at = 0; at < text.size();) {  // indent under the rank
          const auto nl = text.find('\n', at);
          out += "  " + text.substr(at, nl - at + 1);
          at = nl == std::string::npos ? text.size() : nl + 1;
        }
      }
    }
    for (const auto& e : r.events)
      out += "  event " + e.kind + " at " + (e.t >= r.samples.front().t ? "+" : "") +
             seconds(e.t - r.samples.front().t) + ": " + e.message +
             (e.path.empty() ? "" : " [" + e.path + "]") + "\n";
    for (const auto& g : r.gaps)
      out += "  gap at +" + seconds(g.from - r.samples.front().t) + ": " +
             (g.to ? seconds(g.to - g.from) : std::string("until the end")) + " (" + g.reason + ")\n";
    if (r.bad_lines)
      out += "  skipped lines: " + std::to_string(r.bad_lines) + " (last: " + r.last_bad_line + ")\n";
  }
  out += live_alerts_text(alerts, 50);
  return out;
}

void JsonLinePrinter::emit(int rank, const std::string& line) {
  // line is a JSON object ending in "}\n": splice the rank in front.
  std::lock_guard lock(mutex_);
  std::fprintf(out_, "{\"rank\":%d,%s", rank, line.c_str() + 1);
  std::fflush(out_);
}

void JsonLinePrinter::on_endpoint(int rank, const std::string& endpoint) {
  emit(rank, nlohmann::json{{"type", "endpoint"}, {"endpoint", endpoint}}.dump() + "\n");
}
void JsonLinePrinter::on_hello(int rank, const live::Hello& hello) { emit(rank, live::write_line(hello)); }
void JsonLinePrinter::on_sample(int rank, const live::Sample& sample) {
  emit(rank, live::write_line(sample));
}
void JsonLinePrinter::on_event(int rank, const live::Event& event) { emit(rank, live::write_line(event)); }
void JsonLinePrinter::on_shapes(int rank, const live::Shapes& shapes) {
  emit(rank, live::write_line(shapes));
}
void JsonLinePrinter::on_disconnected(int rank, std::int64_t t, const std::string& reason) {
  emit(rank, nlohmann::json{{"type", "status"}, {"t", t}, {"connected", false}, {"message", reason}}.dump(
                 -1, ' ', false, nlohmann::json::error_handler_t::replace) +
                 "\n");
}
void JsonLinePrinter::on_connected(int rank, std::int64_t t) {
  emit(rank,
       nlohmann::json{{"type", "status"}, {"t", t}, {"connected", true}, {"message", "connected"}}.dump() +
           "\n");
}
void JsonLinePrinter::on_bad_line(int rank, std::int64_t t, const std::string& error) {
  emit(rank, nlohmann::json{{"type", "bad_line"}, {"t", t}, {"error", error}}.dump(
                 -1, ' ', false, nlohmann::json::error_handler_t::replace) +
                 "\n");
}
void JsonLinePrinter::forecast(int rank, const live::Forecast& f) {
  std::lock_guard lock(mutex_);
  std::fputs(forecast_line(rank, f).c_str(), out_);
  std::fflush(out_);
}
void JsonLinePrinter::alert(const live::Alert& a) {
  emit(a.rank,
       nlohmann::json{
           {"type", "alert"}, {"t", a.t}, {"rule", a.rule}, {"figure", a.figure}, {"message", a.message}}
               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n");
}

}  // namespace oomscope::cli
