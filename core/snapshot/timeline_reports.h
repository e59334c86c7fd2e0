#pragma once
// Reports (text and JSON) of the runtime-timeline formats: Kineto traces, raw memory timelines, pprof.

#include <nlohmann/json_fwd.hpp>
#include <ostream>

#include "core/snapshot/hta_raw.h"
#include "core/snapshot/kineto.h"
#include "core/snapshot/pprof_profile.h"
#include "core/snapshot/snapshot_json.h"

namespace oomscope::snapshot {

void write_kineto_text(std::ostream& o, const KinetoTrace& t);
nlohmann::json kineto_json(const KinetoTrace& t);
void write_hta_text(std::ostream& o, const HtaTimeline& t);
nlohmann::json hta_json(const HtaTimeline& t);
void write_pprof_text(std::ostream& o, const PprofProfile& p, std::size_t top);
nlohmann::json pprof_json(const PprofProfile& p, std::size_t top);

}  // namespace oomscope::snapshot
