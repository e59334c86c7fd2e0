#pragma once
// gzip decompression for the JSON and protobuf files that come compressed (.json.gz, .raw.gz, .prof).

#include <cstdint>
#include <string>
#include <string_view>

namespace oomscope::snapshot {

bool is_gzip(std::string_view bytes);
// The whole decompressed content (concatenated members included). Throws oomscope::Error naming `name`
// when the stream is damaged or cut, or when it would exceed max_out bytes.
std::string gunzip(std::string_view bytes, const std::string& name, std::uint64_t max_out = 16ull << 30);
// At most `limit` decompressed bytes from the start, for recognising the content; never throws.
std::string gunzip_prefix(std::string_view bytes, std::size_t limit);

}  // namespace oomscope::snapshot
