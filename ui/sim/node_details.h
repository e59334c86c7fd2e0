#pragma once
// The details panel's text for one attempt: where it came from, what it held, what it needed and what
// became of it (its children in the tree). Plain rich text so it can be selected and copied.

#include <QString>
#include <cstdint>

#include "ui/sim/run_data.h"

namespace oomscope::ui {

// HTML for event `eventId` of `run` seen at cursor `step` (children not yet logged are "queued").
QString nodeDetailsHtml(const RunData& run, std::int64_t eventId, std::int64_t step);

}  // namespace oomscope::ui
