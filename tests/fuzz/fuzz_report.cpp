// libFuzzer target for the report on fuzzed captures: the capture reader, then the whole analysis of every
// module the capture holds (plan, runtime, diagnosis; build_host_report) and both outputs, the text report
// and the JSON report (docs/report-json.md) as `oomscope-cli report` writes them. Any bytes must give a
// report or an oomscope::Error that says something, never a crash, a hang or another exception.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/analysis/report/report.h"
#include "core/analysis/report/report_json.h"
#include "core/analysis/report/report_text.h"
#include "core/capture/reader.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace oomscope;
  NullProgress none;
  std::shared_ptr<const capture::Capture> cap;
  try {
    cap = capture::read_capture_from_memory(std::string(reinterpret_cast<const char*>(data), size),
                                            "<fuzz input>", none);
  } catch (const Error& e) {
    if (e.message().empty()) __builtin_trap();
    return 0;
  }
  analysis::ReportOptions options;
  options.capacity = std::int64_t{1} << 30;  // the capacity checks run too
  std::vector<analysis::HostReport> reports;
  try {
    reports.push_back(analysis::build_host_report(*cap, options));
    // Every other module by program id, as `report --module ID` would analyse it (a few, to stay fast).
    std::size_t n = 0;
    for (const auto& m : cap->modules()) {
      if (++n > 3) break;
      analysis::ReportOptions one = options;
      one.module = std::to_string(m.program_id);
      reports.push_back(analysis::build_host_report(*cap, one));
    }
  } catch (const Error& e) {
    if (e.message().empty()) __builtin_trap();
    if (reports.empty()) return 0;
  }
  analysis::add_multi_host_limits(reports);
  std::ostringstream text;
  analysis::write_report_text(text, reports, options.top);
  const std::string json = analysis::report_to_json(reports, options)
                               .dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::size_t touched = text.str().size() + json.size();
  __asm__ volatile("" : : "r"(touched) : "memory");
  return 0;
}
