#pragma once
// The what-if result as the CLI prints it. Every figure is tagged [read] (from the file) or [derived] (by
// replay); scenario figures are called predictions only when the recorded run was reproduced.

#include <string>

#include "core/allocator/whatif.h"

namespace oomscope::allocator {

std::string whatif_text(const WhatIfResult& result, const snapshot::Snapshot& snap);

}  // namespace oomscope::allocator
