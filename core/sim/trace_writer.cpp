// Writing the JSON-lines trace. Event lines are formatted by hand: fixed key order for people reading the
// file, and floats in their shortest round-trip form (std::to_chars) so that a trace is byte-identical for
// the same seed and reads back to the same values.

#include "core/sim/trace_writer.h"

#include <charconv>
#include <fstream>
#include <ostream>
#include <string>

#include "core/sim/trace_json.h"
#include "core/util/error.h"

namespace oomscope::sim {

namespace {

void put_float(std::string& s, float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

void put_int(std::string& s, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

void put_key(std::string& s, const char* key) {
  s += ",\"";
  s += key;
  s += "\":";
}

}  // namespace

TraceWriter::TraceWriter(std::ostream& out, const TraceHeader& header) : out_(out) {
  nlohmann::ordered_json h;
  h["type"] = "header";
  h["format"] = header.format;
  h["version"] = header.version;
  h["source"] = header.source;
  if (header.seed) h["seed"] = *header.seed;
  h["config"] = header.config;
  out_ << h.dump() << '\n';
}

void TraceWriter::write_event(const Event& e, std::span<const std::uint32_t> scenes) {
  static const char* const axis_names[] = {"\"x\"", "\"y\"", "\"z\""};
  std::string s;
  s.reserve(256);
  s += "{\"type\":\"event\",\"id\":";
  put_int(s, e.id);
  put_key(s, "parent"), put_int(s, e.parent);
  put_key(s, "step"), put_int(s, e.step);
  put_key(s, "epoch"), put_int(s, e.epoch);
  put_key(s, "batch"), put_int(s, e.batch);
  put_key(s, "depth"), put_int(s, e.depth);
  put_key(s, "origin"), s += '"', s += to_string(e.origin), s += '"';
  put_key(s, "outcome"), s += '"', s += to_string(e.outcome), s += '"';
  put_key(s, "scenes");
  s += '[';
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    if (i) s += ',';
    put_int(s, scenes[i]);
  }
  s += ']';
  put_key(s, "points"), put_int(s, e.points);
  put_key(s, "bbox");
  s += '[';
  for (int i = 0; i < 6; ++i) {
    if (i) s += ',';
    put_float(s, i < 3 ? e.bbox.lo[i] : e.bbox.hi[i - 3]);
  }
  s += ']';
  put_key(s, "axis");
  if (e.axis >= 0 && e.axis < 3) {
    s += axis_names[e.axis];
    put_key(s, "split"), put_float(s, static_cast<float>(e.split_value));
  } else {
    s += "null";
    put_key(s, "split"), s += "null";
  }
  put_key(s, "bytes_needed"), put_int(s, e.bytes_needed);
  put_key(s, "budget"), put_int(s, e.budget);
  put_key(s, "available"), put_int(s, e.available);
  put_key(s, "start_ns"), put_int(s, e.start_ns);
  put_key(s, "duration_ns"), put_int(s, e.duration_ns);
  put_key(s, "loss_scale");
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, e.loss_scale);
  s.append(buf, r.ptr);
  s += "}\n";
  out_ << s;
}

void TraceWriter::write_totals(const Totals& totals, const Baselines* baselines) {
  // "type" first, then the totals' keys in order, then the baselines.
  const std::string body = totals_to_json(totals).dump();
  std::string line = "{\"type\":\"totals\",";
  line.append(body, 1, body.size() - 2);
  if (baselines) line += ",\"baselines\":" + baselines_to_json(*baselines).dump();
  line += "}\n";
  out_ << line;
  out_.flush();
}

void write_trace(std::ostream& out, const SimConfig& config, const EventLog& log, const Totals& totals,
                 const Baselines& baselines) {
  TraceHeader header;
  header.config = config_to_json(config);
  header.seed = config.seed;
  TraceWriter writer(out, header);
  for (const Event& e : log.events) writer.write_event(e, log);
  writer.write_totals(totals, &baselines);
}

void write_trace_file(const std::string& path, const SimConfig& config, const EventLog& log,
                      const Totals& totals, const Baselines& baselines) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorKind::Io, path, "cannot open the trace file for writing");
  write_trace(out, config, log, totals, baselines);
  out.flush();
  if (!out) throw Error(ErrorKind::Io, path, "could not write the whole trace (disk full?)");
}

}  // namespace oomscope::sim
