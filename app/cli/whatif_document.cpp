// The document of `whatif` and the checks of its values (whatif_document.h).

#include "app/cli/whatif_document.h"

#include <CLI/Error.hpp>
#include <string_view>

#include "core/allocator/allocator_config.h"
#include "core/allocator/whatif_json.h"
#include "core/allocator/whatif_text.h"
#include "core/snapshot/snapshot_reader.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/safe_text.h"

namespace oomscope::cli {

namespace {

// One part of a job's progress: [0, 1] of the part is [lo, hi] of the whole, so reading the snapshot and
// replaying it give one rising figure (MCP progress must only increase).
class PartProgress final : public ProgressSink {
 public:
  PartProgress(ProgressSink& whole, double lo, double hi) : whole_(whole), lo_(lo), hi_(hi) {}
  void report(double fraction, std::string_view stage) override {
    whole_.report(lo_ + (hi_ - lo_) * fraction, stage);
  }

 private:
  ProgressSink& whole_;
  double lo_, hi_;
};

}  // namespace

std::uint64_t parse_whatif_capacity(const std::string& text) {
  const ParsedBytes parsed = parse_byte_size(text);
  if (!parsed) throw CLI::ValidationError("--capacity", parsed.error);
  if (parsed.bytes < 1)
    throw CLI::ValidationError("--capacity", "'" + text + "' is no memory; give at least one byte");
  return static_cast<std::uint64_t>(parsed.bytes);
}

void check_whatif_settings(const std::vector<std::string>& settings) {
  allocator::AllocatorConfig check;
  for (const std::string& kv : settings) {
    try {
      allocator::apply_setting(check, kv);
    } catch (const Error& e) {
      throw CLI::ValidationError("--set", e.message());
    }
  }
}

Rendered whatif_document(const std::string& path, const allocator::WhatIfOptions& options,
                         ProgressSink& progress, const std::stop_token& stop) {
  PartProgress reading(progress, 0.0, 0.1), replaying(progress, 0.1, 1.0);
  const auto snap = snapshot::read_snapshot(path, reading, stop);
  const allocator::WhatIfResult result = allocator::run_whatif(*snap, options, replaying, stop);
  return Rendered{terminal_safe(allocator::whatif_text(result, *snap)), allocator::whatif_json(result)};
}

}  // namespace oomscope::cli
