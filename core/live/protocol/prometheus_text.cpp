// The Prometheus text exposition of an agent's figures (see prometheus_text.h).

#include "core/live/protocol/prometheus_text.h"

#include "core/live/protocol/metric_names.h"

#ifndef OOMSCOPE_PROJECT_VERSION  // set by core/CMakeLists.txt
#define OOMSCOPE_PROJECT_VERSION "unknown"
#endif

namespace oomscope::live {

namespace {

class Writer {
 public:
  explicit Writer(const MetricLabels& l) {
    common_ = "rank=\"" + std::to_string(l.rank) + "\"";
    if (l.local_rank) common_ += ",local_rank=\"" + std::to_string(*l.local_rank) + "\"";
    common_ += ",host=\"" + escape_label_value(l.host) + "\",device=\"" + escape_label_value(l.device) + "\"";
    if (!l.job.empty()) common_ += ",job=\"" + escape_label_value(l.job) + "\"";
  }
  void family(const MetricFamily& f) {
    out_.append("# HELP ").append(f.name).append(" ").append(f.help).append("\n");
    out_.append("# TYPE ").append(f.name).append(" ").append(f.type).append("\n");
  }
  void value(std::string_view name, std::int64_t v, std::string_view extra = {}) {
    out_.append(name).append("{").append(common_);
    if (!extra.empty()) out_.append(",").append(extra);
    out_.append("} ").append(std::to_string(v)).append("\n");
  }
  void one(const MetricFamily& f, std::int64_t v) {
    family(f);
    value(f.name, v);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string common_;
  std::string out_;
};

}  // namespace

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string render_metrics(const MetricsState& s, const MetricLabels& labels) {
  Writer w(labels);
  for (const auto& m : kFieldMetrics) {
    if (s.latest && s.latest->has(m.field)) w.one(m.family, s.latest->get(m.field));
    if (m.field == Field::Rss && s.total_bytes > 0) w.one(kCapacityMetric, s.total_bytes);
  }
  auto count = [&](const char* kind) {
    const auto it = s.events.find(kind);
    return it == s.events.end() ? std::int64_t{0} : static_cast<std::int64_t>(it->second);
  };
  w.one(kSplitsMetric, count("split"));
  w.one(kRestartsMetric, count("restart"));
  w.one(kDroppedMetric, static_cast<std::int64_t>(s.dropped));
  if (s.distinct_shapes) w.one(kShapesMetric, *s.distinct_shapes);
  {
    // The usual kinds are there from the start at 0, so that increase() sees their first event.
    std::map<std::string, std::uint64_t> events = s.events;
    for (const char* kind : {"oom", "split", "checkpoint", "restart"}) events.try_emplace(kind, 0);
    w.family(kEventsMetric);
    for (const auto& [kind, n] : events)
      w.value(kEventsMetric.name, static_cast<std::int64_t>(n), "kind=\"" + escape_label_value(kind) + "\"");
  }
  w.family(kAgentInfoMetric);
  w.value(kAgentInfoMetric.name, 1,
          "agent=\"" + escape_label_value(s.agent) + "\",version=\"" +
              escape_label_value(OOMSCOPE_PROJECT_VERSION) + "\",backend=\"" + escape_label_value(s.backend) +
              "\",stats_endpoint=\"" + escape_label_value(s.stats_endpoint) + "\"");
  return w.take();
}

}  // namespace oomscope::live
