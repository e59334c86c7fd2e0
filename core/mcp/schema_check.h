#pragma once
// Checks a tool's arguments against its input schema before the tool runs, so that what the schema
// declares is what the server enforces. Covers the part of JSON Schema the tools' schemas use: type (one
// or a list), properties, required, additionalProperties (true/false), items, minItems, maxItems,
// minLength, maxLength, minimum, maximum, exclusiveMinimum, enum and anyOf. Keywords outside that set are
// annotations (description, title, default, examples) or ignored.

#include <optional>
#include <string>

#include "core/mcp/json_rpc.h"

namespace oomscope::mcp {

// The first problem as one sentence naming the argument ("top: expected an integer, got a string"), or
// nullopt when `value` follows `schema`.
std::optional<std::string> schema_problem(const Json& schema, const Json& value, const std::string& where);

}  // namespace oomscope::mcp
