#pragma once
// Text for the numbers of a split-and-retry run: counts grouped by thousands, simulated durations with
// three significant figures, bytes through core/util/bytes.h (binary units), fractions as percentages.

#include <QString>
#include <cstdint>

#include "core/sim/event.h"

namespace oomscope::ui::simfmt {

QString count(std::int64_t v);        // "12,345"
QString signedCount(std::int64_t v);  // "+12", "-3", "0"
QString duration(std::int64_t ns);    // "3.72 s", "850 ms", "12.0 us"
QString signedDuration(std::int64_t ns);
QString percent(double fraction);            // "97.3 %"
QString signedPoints(double fractionDelta);  // percentage points: "+4.1 pp"
QString bytes(std::int64_t b);               // "3.72 GiB"
QString bytesExact(std::int64_t b);          // "3,995,074,560 bytes"
QString axisName(int axis);                  // "x" | "y" | "z" | "-"
QString originName(sim::Origin o);           // "batch", "scene", "low half", "high half"

}  // namespace oomscope::ui::simfmt
