// A log's report as JSON (log_json.h).

#include "app/cli/log_json.h"

#include <nlohmann/json.hpp>

#include "core/analysis/diagnosis/diagnosis_types.h"

namespace oomscope::cli {

namespace {

using nlohmann::json;

json figure_json(const log::Figure& f) {
  json j = {{f.count ? "count" : "bytes", f.value}, {"printed", f.printed}, {"exact", f.exact}};
  if (!f.exact) j["error"] = f.error;
  return j;
}

json buffer_json(const log::PeakBuffer& b) {
  json j = {{"index", b.index},
            {"bytes", b.size.value},
            {"printed", b.size.printed},
            {"shape", b.shape},
            {"op_name", b.op_name},
            {"op_type", b.op_type},
            {"source_file", b.source_file},
            {"source_line", b.source_line},
            {"xla_label", b.xla_label},
            {"allocation_type", b.allocation_type},
            {"entry_parameter", b.entry_parameter},
            {"complete", b.complete}};
  if (b.unpadded) j["unpadded_bytes"] = b.unpadded->value;
  if (b.padding_extra) {
    j["padding_bytes"] = b.padding_extra->value;
    j["padding_expansion"] = b.padding_expansion;
  }
  return j;
}

json diagnosis_json(const analysis::DiagnosisLine& l) {
  json fixes = json::array();
  for (const analysis::Fix& f : l.fixes) {
    json fj = {{"action", f.action}, {"saving_note", f.saving_note}, {"cost", f.cost}};
    fj["saving_bytes"] = f.saving_bytes ? json(*f.saving_bytes) : json(nullptr);
    fj["fits_after"] = f.fits_after ? json(*f.fits_after) : json(nullptr);
    fixes.push_back(std::move(fj));
  }
  return {{"rule", l.rule},
          {"provenance", analysis::to_string(l.provenance)},
          {"finding", l.finding},
          {"cause", l.cause},
          {"fixes", std::move(fixes)},
          {"confirm", l.confirm}};
}

}  // namespace

json log_json(const log::LogFile& lf, const log::LogDiagnosis& d) {
  json messages = json::array();
  for (std::size_t i = 0; i < lf.messages.size(); ++i) {
    const log::Message& m = lf.messages[i];
    json figures = json::object();
    for (const log::Figure& f : m.figures)
      if (!figures.contains(f.key)) figures[f.key] = figure_json(f);  // the first of a repeated key
    json buffers = json::array();
    for (const log::PeakBuffer& b : m.buffers) buffers.push_back(buffer_json(b));
    json chunks = json::array();
    for (const log::BfcChunks& c : m.chunks)
      chunks.push_back({{"count", c.count}, {"chunk_bytes", c.chunk_bytes}, {"total_bytes", c.total_bytes}});
    json mj = {{"kind", log::to_string(m.kind)},
               {"out_of_memory", log::is_out_of_memory(m)},
               {"wording", m.wording},
               {"exception", m.exception},
               {"source", m.source},
               {"device", m.device},
               {"line", m.line},
               {"end_line", m.end_line},
               {"offset", m.offset},
               {"complete", m.complete},
               {"first_line", m.first_line},
               {"figures", std::move(figures)},
               {"buffers", std::move(buffers)},
               {"chunks", std::move(chunks)},
               {"hints", m.hints},
               {"notes", m.notes},
               {"op", m.op},
               {"tensor_shape", m.tensor_shape},
               {"allocation_pool", m.allocation_pool}};
    if (i < d.messages.size()) {
      const log::MessageDiagnosis& md = d.messages[i];
      json derived = json::object();
      for (const log::DerivedFigure& f : md.derived)
        if (!derived.contains(f.key)) derived[f.key] = {{"bytes", f.bytes}, {"how", f.how}};
      mj["derived"] = std::move(derived);
      const log::DeviceBar& b = md.bar;
      mj["bar"] = {{"capacity", b.capacity},
                   {"framework_allocated", b.framework_allocated},
                   {"reserved_unused", b.reserved_unused},
                   {"process_other", b.process_other},
                   {"outside_framework", b.outside_framework},
                   {"other_processes", b.other_processes},
                   {"free", b.free},
                   {"request", b.request}};
      json lines = json::array();
      for (const analysis::DiagnosisLine& l : md.lines) lines.push_back(diagnosis_json(l));
      mj["diagnosis"] = std::move(lines);
    }
    messages.push_back(std::move(mj));
  }
  const auto first = lf.first_oom();
  return {{"file", lf.path},
          {"kind", "log"},
          {"file_bytes", lf.bytes},
          {"lines", lf.lines},
          {"long_lines", lf.long_lines},
          {"nul_bytes", lf.nul_bytes},
          {"sources", lf.sources()},
          {"first_oom", first ? json(*first) : json(nullptr)},
          {"looks_like", first ? std::string() : lf.looks_like},
          {"messages", std::move(messages)},
          {"next_steps", d.next_steps}};
}

}  // namespace oomscope::cli
