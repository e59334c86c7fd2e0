#pragma once
// A small HTTP server for Prometheus scrapes (cpp-httplib): GET /metrics answers with the text `render`
// returns, on its own threads. Binds 127.0.0.1 by default; any other address needs a token, which the
// scraper sends as `Authorization: Bearer TOKEN` (compared in constant time; 401 otherwise).

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/live/protocol/endpoint.h"

namespace httplib {
class Server;
}

namespace oomscope::live {

class MetricsHttpServer {
 public:
  // Throws oomscope::Error(InvalidArgument) for a non-loopback (or Unix) address without a token, or a
  // Unix address; Error(Io) when it cannot listen.
  MetricsHttpServer(Endpoint listen, std::string token, std::function<std::string()> render);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  int port() const { return port_; }
  std::string endpoint() const;  // HOST:PORT
  void stop();

 private:
  Endpoint listen_;
  int port_ = 0;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
};

}  // namespace oomscope::live
