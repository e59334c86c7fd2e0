#pragma once
// A capture cut short: the file ends inside one of XSpace's top-level fields (a plane, an error, a warning,
// a hostname). read_capture keeps what precedes the cut when that holds the plan (/host:metadata) or a
// device plane read whole and the cut falls in neither; Capture::cut_short() then says what was cut. A cut
// inside the plan or a device plane, or before any of them was read whole, stays a Truncated error.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace oomscope::capture {

struct CutShort {
  // Where the data ends (the file's size; the decompressed size of a .gz).
  std::uint64_t data_bytes = 0;
  // Where the top-level field that the cut falls in begins.
  std::uint64_t field_offset = 0;
  // XSpace's field: 1 plane, 2 error, 3 warning, 4 hostname; 0 when its tag is cut.
  std::uint32_t field_number = 0;
  // The cut plane's name, when the bytes before the cut hold it whole.
  std::string plane;
  // The cut field's length, when its header is whole.
  std::optional<std::uint64_t> declared_bytes;
  // Of its payload, the bytes before the cut.
  std::uint64_t present_bytes = 0;
  // The planes read whole, in file order (each name once).
  std::vector<std::string> planes_read;

  // "the plane \"/host:CPU\"", "a hostname", ...: the field the cut falls in, for sentences.
  std::string field_text() const;
  // One sentence: where the file ends, what was left out and what was read whole.
  std::string note() const;
};

}  // namespace oomscope::capture
