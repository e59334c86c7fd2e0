// libFuzzer target for the live protocol: any bytes, split into lines the way the client splits a
// connection's stream (with the oversized-line cap), must parse to a message or a non-empty error, never a
// crash, a hang or an exception; a parsed sample, event or shapes line written back must parse to the same
// values.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/live/protocol/protocol.h"

using namespace oomscope::live;

namespace {

void check_round_trip(const Message& m) {
  if (const auto* s = std::get_if<Sample>(&m)) {
    const std::string line = write_line(*s);
    const ParseResult back = parse_line(std::string_view(line).substr(0, line.size() - 1));
    if (!back.message) __builtin_trap();
    const auto* b = std::get_if<Sample>(&*back.message);
    if (!b || b->t != s->t || b->present != s->present || b->values != s->values) __builtin_trap();
  } else if (const auto* e = std::get_if<Event>(&m)) {
    const std::string line = write_line(*e);
    const ParseResult back = parse_line(std::string_view(line).substr(0, line.size() - 1));
    // Invalid UTF-8 in a message is replaced when written, so only the kind and time are compared.
    if (!back.message) __builtin_trap();
    const auto* b = std::get_if<Event>(&*back.message);
    if (!b || b->t != e->t || b->step != e->step) __builtin_trap();
  } else if (const auto* sh = std::get_if<Shapes>(&m)) {
    const std::string line = write_line(*sh);
    const ParseResult back = parse_line(std::string_view(line).substr(0, line.size() - 1));
    if (!back.message) __builtin_trap();
    const auto* b = std::get_if<Shapes>(&*back.message);
    if (!b || b->distinct != sh->distinct || b->last != sh->last) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Small cap so that the fuzzer reaches the oversized path with short inputs.
  LineSplitter split(256);
  std::size_t lines = 0;
  auto on_line = [&](std::string_view line) {
    ++lines;
    const ParseResult r = parse_line(line);
    if (r.message)
      check_round_trip(*r.message);
    else if (r.error.empty())
      __builtin_trap();  // every rejection says why
  };
  // Feed in two chunks split at a data-dependent point: the splitter must not depend on chunking.
  const std::size_t cut = size ? data[0] % (size + 1) : 0;
  split.feed(bytes.substr(0, cut), on_line, [](std::size_t n) {
    if (n <= 256) __builtin_trap();
  });
  split.feed(bytes.substr(cut), on_line, [](std::size_t n) {
    if (n <= 256) __builtin_trap();
  });
  (void)lines;
  // The whole input as one line too (the client never passes more than kMaxLineBytes, parse_line checks).
  const ParseResult whole = parse_line(bytes);
  if (!whole.message && whole.error.empty()) __builtin_trap();
  return 0;
}
