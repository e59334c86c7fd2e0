// The Prometheus text exposition of an agent's figures (see prometheus_text.h).

#include "core/live/protocol/prometheus_text.h"

#include <array>

#ifndef OOMSCOPE_PROJECT_VERSION  // set by core/CMakeLists.txt
#define OOMSCOPE_PROJECT_VERSION "unknown"
#endif

namespace oomscope::live {

namespace {

struct FieldMetric {
  Field field;
  const char* name;
  const char* type;
  const char* help;
};

constexpr std::array<FieldMetric, 12> kFieldMetrics{{
    {Field::Allocated, "oomscope_allocated_bytes", "gauge",
     "Bytes the framework's allocator has handed out."},
    {Field::Reserved, "oomscope_reserved_bytes", "gauge",
     "Bytes the caching allocator holds from the device."},
    {Field::Active, "oomscope_active_bytes", "gauge", "Bytes in active allocator blocks."},
    {Field::InactiveSplit, "oomscope_inactive_split_bytes", "gauge",
     "Bytes in inactive split blocks (fragmentation)."},
    {Field::PeakAllocated, "oomscope_peak_allocated_bytes", "gauge", "Peak of allocated bytes."},
    {Field::DeviceUsed, "oomscope_device_used_bytes", "gauge",
     "Device memory the driver reports in use for the process or device."},
    {Field::Driver, "oomscope_driver_bytes", "gauge", "Bytes the MPS driver has allocated for the process."},
    {Field::RecommendedMax, "oomscope_recommended_max_bytes", "gauge",
     "The MPS recommended maximum working set."},
    {Field::Rss, "oomscope_rss_bytes", "gauge", "Resident set size of the process."},
    {Field::Ooms, "oomscope_ooms_total", "counter", "Out-of-memory errors the allocator counted."},
    {Field::AllocRetries, "oomscope_alloc_retries_total", "counter",
     "Allocations retried after freeing cached blocks."},
    {Field::Step, "oomscope_optimizer_step", "gauge", "The optimizer step the trainer reached."},
}};

class Writer {
 public:
  explicit Writer(const MetricLabels& l) {
    common_ = "rank=\"" + std::to_string(l.rank) + "\"";
    if (l.local_rank) common_ += ",local_rank=\"" + std::to_string(*l.local_rank) + "\"";
    common_ += ",host=\"" + escape_label_value(l.host) + "\",device=\"" + escape_label_value(l.device) + "\"";
    if (!l.job.empty()) common_ += ",job=\"" + escape_label_value(l.job) + "\"";
  }
  void family(std::string_view name, std::string_view type, std::string_view help) {
    out_.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
  }
  void value(std::string_view name, std::int64_t v, std::string_view extra = {}) {
    out_.append(name).append("{").append(common_);
    if (!extra.empty()) out_.append(",").append(extra);
    out_.append("} ").append(std::to_string(v)).append("\n");
  }
  void one(std::string_view name, std::string_view type, std::string_view help, std::int64_t v) {
    family(name, type, help);
    value(name, v);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string common_;
  std::string out_;
};

}  // namespace

std::string_view metric_for_field(Field field) noexcept {
  for (const auto& m : kFieldMetrics)
    if (m.field == field) return m.name;
  return {};
}

bool metric_is_counter(Field field) noexcept { return field == Field::Ooms || field == Field::AllocRetries; }

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
    if (s.latest && s.latest->has(m.field)) w.one(m.name, m.type, m.help, s.latest->get(m.field));
    if (m.field == Field::Rss && s.total_bytes > 0)
      w.one("oomscope_device_capacity_bytes", "gauge", "Device memory in total (the hello's total_bytes).",
            s.total_bytes);
  }
  auto count = [&](const char* kind) {
    const auto it = s.events.find(kind);
    return it == s.events.end() ? std::int64_t{0} : static_cast<std::int64_t>(it->second);
  };
  w.one("oomscope_splits_total", "counter", "Split events the trainer posted.", count("split"));
  w.one("oomscope_restarts_total", "counter", "Restart events the trainer posted.", count("restart"));
  w.one("oomscope_dropped_samples_total", "counter",
        "Lines the agent dropped because a client's queue was full.", static_cast<std::int64_t>(s.dropped));
  if (s.distinct_shapes)
    w.one("oomscope_distinct_input_shapes", "gauge", "Distinct padded batch shapes seen so far.",
          *s.distinct_shapes);
  {
    // The usual kinds are there from the start at 0, so that increase() sees their first event.
    std::map<std::string, std::uint64_t> events = s.events;
    for (const char* kind : {"oom", "split", "checkpoint", "restart"}) events.try_emplace(kind, 0);
    w.family("oomscope_events_total", "counter", "Events the trainer posted, by kind.");
    for (const auto& [kind, n] : events)
      w.value("oomscope_events_total", static_cast<std::int64_t>(n),
              "kind=\"" + escape_label_value(kind) + "\"");
  }
  w.family("oomscope_agent_info", "gauge", "The agent serving these figures (value is always 1).");
  w.value("oomscope_agent_info", 1,
          "agent=\"" + escape_label_value(s.agent) + "\",version=\"" +
              escape_label_value(OOMSCOPE_PROJECT_VERSION) + "\",backend=\"" + escape_label_value(s.backend) +
              "\",stats_endpoint=\"" + escape_label_value(s.stats_endpoint) + "\"");
  return w.take();
}

}  // namespace oomscope::live
