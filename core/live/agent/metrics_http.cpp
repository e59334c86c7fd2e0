// The /metrics HTTP server (see metrics_http.h).

#include "core/live/agent/metrics_http.h"

#include <httplib.h>

#include "core/live/agent/agent_server.h"
#include "core/util/error.h"

namespace oomscope::live {

MetricsHttpServer::MetricsHttpServer(Endpoint listen, std::string token, std::function<std::string()> render)
    : listen_(std::move(listen)), server_(std::make_unique<httplib::Server>()) {
  if (listen_.is_unix)
    throw Error(ErrorKind::InvalidArgument, {},
                "/metrics is served over TCP; give HOST:PORT, not a Unix path");
  if (!listen_.is_loopback() && token.empty())
    throw Error(ErrorKind::InvalidArgument, {},
                "serving /metrics on " + listen_.to_string() + " (not loopback) needs a token");
  // Two worker threads are plenty for a scraper or two; the default pool is one per core.
  server_->new_task_queue = [] { return new httplib::ThreadPool(2); };
  server_->set_keep_alive_max_count(100);
  const std::string expected = token.empty() ? std::string() : "Bearer " + token;
  server_->Get("/metrics",
               [expected, render = std::move(render)](const httplib::Request& req, httplib::Response& res) {
                 if (!expected.empty() && !tokens_equal(req.get_header_value("Authorization"), expected)) {
                   res.status = 401;
                   res.set_content("unauthorized: send Authorization: Bearer TOKEN\n", "text/plain");
                   return;
                 }
                 try {
                   res.set_content(render(), "text/plain; version=0.0.4; charset=utf-8");
                 } catch (const std::exception& e) {
                   res.status = 500;
                   res.set_content(std::string("cannot render: ") + e.what() + "\n", "text/plain");
                 }
               });
  server_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404) res.set_content("not found: the figures are at /metrics\n", "text/plain");
  });
  std::string host = listen_.host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (listen_.port == 0)
    port_ = server_->bind_to_any_port(host);
  else
    port_ = server_->bind_to_port(host, listen_.port) ? listen_.port : -1;
  if (port_ <= 0)
    throw Error(ErrorKind::Io, {}, "cannot serve /metrics on " + listen_.to_string() + ": bind failed");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

MetricsHttpServer::~MetricsHttpServer() { stop(); }

std::string MetricsHttpServer::endpoint() const {
  Endpoint ep = listen_;
  ep.port = port_;
  return ep.to_string();
}

void MetricsHttpServer::stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace oomscope::live
