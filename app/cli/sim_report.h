#pragma once
// Text and JSON reports of a finished simulation (oomscope-cli simulate).

#include <nlohmann/json_fwd.hpp>
#include <ostream>

#include "core/sim/simulator.h"

namespace oomscope::cli {

// Readable totals: the setup, what happened, and the baselines side by side.
void print_sim_report(std::ostream& out, const sim::Simulator& sim);
// {"config", "totals", "baselines", "crash"}
nlohmann::ordered_json sim_report_json(const sim::Simulator& sim);

// "12.3 s", "845 ms", "3.20 us": simulated durations with three significant figures.
std::string format_duration_ns(std::int64_t ns);

}  // namespace oomscope::cli
