// libFuzzer target for the Prometheus HTTP API answer parser (core/live/prom/prom_api.cpp,
// parse_prom_answer): the body of a query, query_range or series answer comes from a server over the network,
// so any bytes must give series or an oomscope::Error that names the server and says something, never a
// crash, a hang or another exception. The selector and source parsers (user text) get the same bytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/live/prom/prom_api.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace oomscope::live;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const std::string server = "http://fuzz:9090";
  std::size_t touched = 0;
  try {
    for (const PromSeries& s : parse_prom_answer(server, body)) {
      touched += s.labels.size() + s.points.size() + s.label("instance").size();
      for (const auto& [t, v] : s.points) touched += static_cast<std::size_t>(t & 1) + (v > 0 ? 1 : 0);
    }
  } catch (const oomscope::Error& e) {
    if (e.message().empty() || e.file() != server) __builtin_trap();  // errors name the server
  }
  try {
    touched += normalise_selector(body).size();
  } catch (const oomscope::Error& e) {
    if (e.message().empty()) __builtin_trap();
  }
  try {
    touched += parse_prometheus_source(body, false).size();
  } catch (const oomscope::Error& e) {
    if (e.message().empty()) __builtin_trap();
  }
  __asm__ volatile("" : : "r"(touched) : "memory");
  return 0;
}
