#include "app/cli/info_format.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/analysis/runtime/runtime_executions.h"
#include "core/util/bytes.h"

namespace oomscope::cli {

namespace {

using capture::Capture;
using capture::ExecutionKind;

std::string bytes_cell(std::int64_t bytes) {
  return format_bytes_exact(bytes) + " (" + format_bytes(bytes) + ")";
}

// A plain text table: first column left-aligned, the others right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostringstream& out) const {
    std::vector<std::size_t> width(rows_[0].size(), 0);
    for (const auto& row : rows_)
      for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto& row : rows_) {
      std::string line = "  ";
      for (std::size_t c = 0; c < row.size(); ++c) {
        const std::string pad(width[c] - row[c].size(), ' ');
        line += c == 0 ? row[c] + pad : "  " + pad + row[c];
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::size_t count_kind(const Capture& c, ExecutionKind kind) {
  return static_cast<std::size_t>(
      std::count_if(c.executions().begin(), c.executions().end(),
                    [&](const capture::ExecutionSpan& s) { return s.kind == kind; }));
}

// Executions as the report counts them (one per ExecuteHelper span, nested helpers once, or a module span
// outside one; TPU: the device's module runs): the spans above are of several kinds per execution.
std::size_t execution_count(const Capture& c) {
  analysis::ExecutionInput in;
  in.spans = c.executions();
  in.memory = c.memory_events();
  in.strings = c.strings();
  return analysis::build_executions(in).size();
}

}  // namespace

std::string info_text(const Capture& c) {
  std::ostringstream out;
  out << "file: " << c.path() << " (" << format_bytes(c.file_size())
      << (c.decompressed() ? " decompressed" : "") << ")\n";
  if (const auto& cut = c.cut_short())
    out << "cut short: the file ends inside " << cut->field_text()
        << ", which is not read; every count below is of "
        << "the " << cut->planes_read.size() << " planes read whole (see problems)\n";
  out << "hosts: ";
  if (c.hostnames().empty()) out << "(none recorded)";
  for (std::size_t i = 0; i < c.hostnames().size(); ++i) out << (i ? ", " : "") << c.hostnames()[i];
  out << "\nevents: " << format_bytes_exact(static_cast<std::int64_t>(c.event_count())) << "\n";

  out << "\nplanes (" << c.planes().size() << "):\n";
  Table planes({"name", "lines", "events"});
  for (const auto& p : c.planes())
    planes.add({p.name.empty() ? "(unnamed)" : p.name, std::to_string(p.lines.size()),
                format_bytes_exact(static_cast<std::int64_t>(p.event_count()))});
  planes.print(out);

  out << "\nmodules (" << c.modules().size() << "):\n";
  if (c.modules().empty()) {
    out << "  (no HloProto in /host:metadata)\n";
  } else {
    Table modules({"name", "program id", "parameters", "donated", "outputs", "temp", "total allocation"});
    for (const auto& m : c.modules()) {
      const auto& t = m.totals;
      modules.add({m.name, std::to_string(m.program_id), bytes_cell(t.parameters_bytes),
                   bytes_cell(t.donated_bytes), bytes_cell(t.outputs_bytes), bytes_cell(t.temp_bytes),
                   bytes_cell(t.total_allocation_bytes)});
    }
    modules.print(out);
  }
  for (const auto& problem : c.module_problems()) out << "  problem: " << problem << "\n";

  out << "\nallocators (" << c.allocators().size() << "):\n";
  if (c.allocators().empty()) {
    out << "  (no MemoryAllocation/MemoryDeallocation events)\n";
  } else {
    Table allocators({"name", "allocations", "deallocations", "max in use", "lifetime peak", "capacity"});
    for (const auto& a : c.allocators())
      allocators.add({a.name, format_bytes_exact(a.allocations), format_bytes_exact(a.deallocations),
                      bytes_cell(a.max_bytes_in_use), bytes_cell(a.peak_bytes_in_use),
                      bytes_cell(a.capacity_bytes)});
    allocators.print(out);
  }

  out << "\nallocator retries: " << c.allocator_retries().size() << "\n";
  out << "executions: " << execution_count(c) << " [measured]; execution spans: " << c.executions().size()
      << " (" << count_kind(c, ExecutionKind::XlaModule) << " XLA module spans, "
      << count_kind(c, ExecutionKind::ExecuteHelper) << " execute calls, "
      << count_kind(c, ExecutionKind::PjitFunction) << " pjit calls, "
      << count_kind(c, ExecutionKind::DeviceModule) << " device module spans)\n";
  out << "device events tagged with a program: " << c.device_program_events().size() << "\n";
  if (!c.errors().empty() || !c.reader_notes().empty()) {
    out << "\nproblems:\n";
    for (const auto& e : c.errors()) out << "  capture error: " << e << "\n";
    for (const auto& n : c.reader_notes()) out << "  " << n << "\n";
  }
  return out.str();
}

nlohmann::ordered_json info_json(const Capture& c) {
  nlohmann::ordered_json j;
  j["file"] = c.path();
  j["file_size_bytes"] = c.file_size();
  j["decompressed"] = c.decompressed();
  j["hostnames"] = c.hostnames();
  if (auto start = c.profile_start_time_ns())
    j["profile_start_time_ns"] = *start;
  else
    j["profile_start_time_ns"] = nullptr;
  j["event_count"] = c.event_count();

  j["planes"] = nlohmann::ordered_json::array();
  for (const auto& p : c.planes())
    j["planes"].push_back({{"name", p.name}, {"lines", p.lines.size()}, {"events", p.event_count()}});

  j["modules"] = nlohmann::ordered_json::array();
  for (const auto& m : c.modules()) {
    const auto& t = m.totals;
    j["modules"].push_back({{"name", m.name},
                            {"program_id", m.program_id},
                            {"metadata_name", m.metadata_name},
                            {"hlo_proto_bytes", m.hlo_bytes},
                            {"has_buffer_assignment", m.has_buffer_assignment},
                            {"parameters_bytes", t.parameters_bytes},
                            {"donated_bytes", t.donated_bytes},
                            {"outputs_bytes", t.outputs_bytes},
                            {"temp_bytes", t.temp_bytes},
                            {"constants_bytes", t.constants_bytes},
                            {"thread_local_bytes", t.thread_local_bytes},
                            {"total_allocation_bytes", t.total_allocation_bytes},
                            {"allocation_count", t.allocation_count},
                            {"parameter_count", t.parameter_count},
                            {"donated_count", t.donated_count},
                            {"donation_disagreements", t.donation_disagreements},
                            {"heap_trace_count", t.heap_trace_count}});
  }
  j["module_problems"] = c.module_problems();
  j["capture_errors"] = c.errors();
  j["reader_notes"] = c.reader_notes();
  if (const auto& cut = c.cut_short())
    j["cut_short"] = {
        {"data_bytes", cut->data_bytes},
        {"field_offset", cut->field_offset},
        {"field", cut->field_text()},
        {"plane", cut->plane.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cut->plane)},
        {"declared_bytes", cut->declared_bytes ? nlohmann::ordered_json(*cut->declared_bytes)
                                               : nlohmann::ordered_json(nullptr)},
        {"present_bytes", cut->present_bytes},
        {"planes_read", cut->planes_read}};
  else
    j["cut_short"] = nullptr;

  j["allocators"] = nlohmann::ordered_json::array();
  for (const auto& a : c.allocators())
    j["allocators"].push_back({{"name", a.name},
                               {"allocations", a.allocations},
                               {"deallocations", a.deallocations},
                               {"max_bytes_in_use", a.max_bytes_in_use},
                               {"peak_bytes_in_use", a.peak_bytes_in_use},
                               {"capacity_bytes", a.capacity_bytes},
                               {"largest_allocation_bytes", a.largest_allocation},
                               {"first_time_ps", a.first_time_ps},
                               {"last_time_ps", a.last_time_ps}});
  j["allocator_retries"] = c.allocator_retries().size();
  j["executions"] = {{"count", execution_count(c)},
                     {"total", c.executions().size()},
                     {"xla_module", count_kind(c, ExecutionKind::XlaModule)},
                     {"execute", count_kind(c, ExecutionKind::ExecuteHelper)},
                     {"pjit", count_kind(c, ExecutionKind::PjitFunction)},
                     {"device_module", count_kind(c, ExecutionKind::DeviceModule)}};
  j["device_program_events"] = c.device_program_events().size();
  return j;
}

}  // namespace oomscope::cli
