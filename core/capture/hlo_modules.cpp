// The memory plan of /host:metadata: one xla::HloProto per program, parsed as a full message (they are
// small), with its program id chosen by the spec's rules (docs/capture-format.md section 6).

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <climits>
#include <filesystem>

#include "core/capture/detail/capture_builder.h"
#include "core/capture/parse_cost.h"
#include "core/capture/reader.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "hlo.pb.h"

namespace oomscope::capture {

std::shared_ptr<const xla::HloProto> parse_hlo_proto(std::string_view bytes) {
  auto hlo = std::make_shared<xla::HloProto>();
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(INT_MAX);
  in.SetRecursionLimit(1000);  // deeply nested tuple shapes are legal
  if (!hlo->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) return nullptr;
  return hlo;
}

Module make_module(std::shared_ptr<const xla::HloProto> hlo, std::uint64_t program_id,
                   std::string metadata_name, std::size_t hlo_bytes) {
  Module m;
  m.name = hlo->hlo_module().name();
  if (m.name.empty()) {
    auto split = split_program_suffix(metadata_name);
    m.name = split ? std::string(split->first) : metadata_name;
  }
  m.program_id = program_id;
  m.metadata_name = std::move(metadata_name);
  m.hlo_bytes = hlo_bytes;
  m.has_buffer_assignment = hlo->has_buffer_assignment();
  m.totals = compute_plan_totals(*hlo);
  m.hlo = std::move(hlo);
  return m;
}

void CaptureBuilder::finish_modules() {
  Capture& c = *capture_;
  std::map<std::uint64_t, std::size_t> by_id;  // program id -> index in modules_
  for (std::size_t i = 0; i < pending_modules_.size(); ++i) {
    if (stop_.stop_requested()) throw Cancelled(path_);
    // The scan reported up to 0.95; parsing the HloProtos takes the rest.
    progress_.report(0.95 + 0.05 * static_cast<double>(i) / static_cast<double>(pending_modules_.size()),
                     "parsing HLO");
    const PendingModule& pm = pending_modules_[i];
    // Program id: a program_id stat, else the "(N)" suffix of the name (libtpu wrote other ids as keys),
    // else the map key. Always unsigned: TPU ids are 64-bit fingerprints.
    std::uint64_t id = static_cast<std::uint64_t>(pm.key);
    if (pm.program_id_stat)
      id = *pm.program_id_stat;
    else if (auto split = split_program_suffix(pm.metadata_name))
      id = split->second;

    if (auto dup = by_id.find(id); dup != by_id.end()) {
      const Module& first = c.modules_[dup->second];
      if (first.hlo_bytes != pm.hlo_bytes.size() || first.metadata_name != pm.metadata_name)
        c.module_problems_.push_back(pm.metadata_name + ": a second HloProto for program id " +
                                     std::to_string(id) + " differs from the first and was ignored");
      continue;
    }
    // What the parse would allocate is known before it runs (parse_cost.h): a module that would not fit in
    // what is left of the budget is skipped, and the other modules are still read.
    charge(0, "HLO modules");  // sets the budget
    const std::uint64_t left = budget_ - std::min(budget_, charged_);
    const ParseCost cost = estimate_parse_cost(*xla::HloProto::descriptor(), pm.hlo_bytes, left);
    if (cost.over_limit) {
      c.module_problems_.push_back(
          pm.metadata_name + ": its HloProto (" +
          format_bytes_exact(static_cast<std::int64_t>(pm.hlo_bytes.size())) +
          " bytes) was skipped: parsing it would take more than " + format_bytes(left) +
          " of memory, all that is left of the reader's budget for " +
          std::filesystem::path(path_).filename().string() + " (" + std::to_string(kBudgetTimesFile) +
          " times the file size + 64 MiB); it was probably crafted or damaged");
      continue;
    }
    auto hlo = cost.malformed ? nullptr : parse_hlo_proto(pm.hlo_bytes);
    if (!hlo) {
      c.module_problems_.push_back(pm.metadata_name + ": its HloProto (" +
                                   std::to_string(pm.hlo_bytes.size()) +
                                   " bytes) is damaged and was skipped");
      continue;
    }
    charge(static_cast<std::uint64_t>(hlo->SpaceUsedLong()), "HLO modules");
    by_id.emplace(id, c.modules_.size());
    c.modules_.push_back(make_module(std::move(hlo), id, pm.metadata_name, pm.hlo_bytes.size()));
  }
  std::stable_sort(c.modules_.begin(), c.modules_.end(),
                   [](const Module& a, const Module& b) { return a.program_id < b.program_id; });
}

}  // namespace oomscope::capture
