#pragma once
// What a live source (the client, or a recording being replayed) hands on, one call per thing that
// happened. `rank` is the index of the endpoint (one endpoint per rank), not the hello's rank field.
// All times are unix nanoseconds.

#include <cstdint>
#include <string>

#include "core/live/protocol/protocol.h"

namespace oomscope::live {

class LiveSink {
 public:
  virtual ~LiveSink() = default;
  virtual void on_endpoint(int rank, const std::string& endpoint) = 0;
  virtual void on_hello(int rank, const Hello& hello) = 0;
  virtual void on_sample(int rank, const Sample& sample) = 0;
  virtual void on_event(int rank, const Event& event) = 0;
  virtual void on_shapes(int rank, const Shapes& shapes) = 0;
  // The connection is lost (or could not be made): samples stop until the next on_connected.
  virtual void on_disconnected(int rank, std::int64_t t, const std::string& reason) = 0;
  virtual void on_connected(int rank, std::int64_t t) = 0;
  // A line was skipped: malformed, wrong-typed or oversized. `error` says which and why.
  virtual void on_bad_line(int rank, std::int64_t t, const std::string& error) = 0;
};

std::int64_t now_unix_ns();

}  // namespace oomscope::live
