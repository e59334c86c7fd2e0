#pragma once
// Internal: parsing one serialized xla::HloProto, shared by /host:metadata and the sidecar reader.

#include <memory>
#include <string>
#include <string_view>

#include "core/capture/capture.h"

namespace oomscope::capture {

// nullptr when the bytes are not a valid HloProto.
std::shared_ptr<const xla::HloProto> parse_hlo_proto(std::string_view bytes);

Module make_module(std::shared_ptr<const xla::HloProto> hlo, std::uint64_t program_id, std::string metadata_name,
                   std::size_t hlo_bytes);

}  // namespace oomscope::capture
