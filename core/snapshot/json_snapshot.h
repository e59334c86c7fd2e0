#pragma once
// A memory snapshot written as JSON (the same dict as the pickle that torch.cuda.memory._dump_snapshot()
// writes: PyTorch's memory_viz accepts both, trying JSON first). The JSON is re-encoded as a data-only
// pickle stream so that one reader and one builder serve both forms.

#include <stop_token>
#include <string>
#include <string_view>

namespace oomscope::snapshot {

// Does the content start (after white space) like a JSON document?
bool looks_like_json(std::string_view bytes);

// The JSON document as a protocol-2 pickle of dicts, lists, str, int, float, bool and None. Throws
// oomscope::Error naming `name`: Damaged with the byte offset for invalid JSON, nesting deeper than the
// pickle reader accepts, or binary values; Cancelled when `stop` is requested.
std::string json_to_pickle(std::string_view json, const std::string& name, std::stop_token stop = {});

}  // namespace oomscope::snapshot
