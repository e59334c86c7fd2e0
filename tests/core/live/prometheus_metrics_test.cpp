// The agents' Prometheus /metrics: the text rendering (figures present or absent, labels, escaping) and
// the C++ agent's HTTP server over real loopback sockets (200 with the latest sample, 404 elsewhere, the
// Bearer token rule, refusing a non-loopback address without a token).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "core/live/agent/agent_server.h"
#include "core/live/agent/metrics_http.h"
#include "core/live/protocol/prometheus_text.h"
#include "core/util/error.h"

namespace oomscope::live {
namespace {

std::string http_get(int port, const std::string& path, const std::string& header = {}) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "connect failed";
  }
  const std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n" + header + "\r\n";
  [[maybe_unused]] const auto sent = ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

TEST(PrometheusText, PresentFiguresOnlyWithLabels) {
  MetricsState st;
  st.backend = "cuda";
  st.total_bytes = 80'000'000'000;
  st.stats_endpoint = "unix:/tmp/a \"b\"";
  Sample s;
  s.t = 1;
  s.set(Field::Allocated, 123);
  s.set(Field::Ooms, 2);
  s.set(Field::Micro, 9);
  st.latest = s;
  st.events["split"] = 3;
  st.events["oom"] = 2;
  MetricLabels l;
  l.rank = 5;
  l.host = "node\\1";
  l.device = "cuda:1";
  const std::string text = render_metrics(st, l);
  const std::string common = "rank=\"5\",host=\"node\\\\1\",device=\"cuda:1\"";
  EXPECT_NE(
      text.find("# TYPE oomscope_allocated_bytes gauge\noomscope_allocated_bytes{" + common + "} 123\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE oomscope_ooms_total counter\noomscope_ooms_total{" + common + "} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("oomscope_device_capacity_bytes{" + common + "} 80000000000\n"), std::string::npos);
  EXPECT_NE(text.find("oomscope_splits_total{" + common + "} 3\n"), std::string::npos);
  EXPECT_NE(text.find("oomscope_restarts_total{" + common + "} 0\n"), std::string::npos);
  EXPECT_NE(text.find("oomscope_events_total{" + common + ",kind=\"oom\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("stats_endpoint=\"unix:/tmp/a \\\"b\\\"\""), std::string::npos);
  for (const char* absent :
       {"oomscope_reserved_bytes", "oomscope_driver_bytes", "oomscope_rss_bytes", "oomscope_optimizer_step",
        "oomscope_distinct_input_shapes", "local_rank", "job="})
    EXPECT_EQ(text.find(absent), std::string::npos) << absent;
  EXPECT_EQ(text.find("micro"), std::string::npos);  // not exported

  st.total_bytes = 0;
  st.latest.reset();
  st.distinct_shapes = 0;
  l.local_rank = 1;
  l.job = "train";
  const std::string none = render_metrics(st, l);
  EXPECT_EQ(none.find("oomscope_device_capacity_bytes"), std::string::npos);
  EXPECT_EQ(none.find("oomscope_allocated_bytes"), std::string::npos);
  EXPECT_NE(none.find("oomscope_distinct_input_shapes{rank=\"5\",local_rank=\"1\",host=\"node\\\\1\",device="
                      "\"cuda:1\",job=\"train\"} 0\n"),
            std::string::npos)
      << none;
}

class FixedSource final : public StatsSource {
 public:
  std::string name() const override { return "fixed"; }
  void fill(Sample& s) override { s.set(Field::Reserved, 4096); }
};

TEST(PrometheusHttp, AgentServesLatestSampleWithoutClients) {
  AgentOptions o;
  o.metrics = Endpoint{false, "127.0.0.1", 0, {}};
  o.job = "unit";
  o.interval_ms = 20;
  o.hello.backend = "cpu";
  AgentServer agent(o);
  agent.add_source(std::make_unique<FixedSource>());
  agent.start();
  agent.set_step(42);
  agent.post_event(Event{0, "restart", "x", {}, {}});
  const std::string ep = agent.metrics_endpoint();
  ASSERT_EQ(ep.rfind("127.0.0.1:", 0), 0u) << ep;
  const int port = std::stoi(ep.substr(10));
  std::string page;
  for (int i = 0; i < 100 && page.find("oomscope_optimizer_step{") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    page = http_get(port, "/metrics");
  }
  EXPECT_NE(page.find("HTTP/1.1 200"), std::string::npos) << page;
  EXPECT_NE(page.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << page;
  EXPECT_NE(page.find("oomscope_reserved_bytes{rank=\"0\",local_rank=\"0\",host=\""), std::string::npos)
      << page;
  EXPECT_NE(page.find(",device=\"cpu\",job=\"unit\"} 4096\n"), std::string::npos) << page;
  EXPECT_NE(page.find("oomscope_optimizer_step{"), std::string::npos);
  EXPECT_NE(page.find("} 42\n"), std::string::npos);
  EXPECT_NE(page.find("oomscope_restarts_total{"), std::string::npos);
  EXPECT_NE(page.find("agent=\"cpp\""), std::string::npos);
  EXPECT_NE(page.find("stats_endpoint=\"" + agent.endpoint().to_string() + "\""), std::string::npos);
  EXPECT_NE(http_get(port, "/other").find("HTTP/1.1 404"), std::string::npos);
  agent.stop();
}

TEST(PrometheusHttp, TokenRule) {
  EXPECT_THROW(MetricsHttpServer(Endpoint{false, "0.0.0.0", 0, {}}, "", [] { return std::string("x"); }),
               Error);
  EXPECT_THROW(MetricsHttpServer(Endpoint{true, {}, 0, "/tmp/x"}, "t", [] { return std::string("x"); }),
               Error);
  // Loopback with a token: the token is still required.
  MetricsHttpServer server(Endpoint{false, "127.0.0.1", 0, {}}, "s3cret",
                           [] { return std::string("m 1\n"); });
  EXPECT_NE(http_get(server.port(), "/metrics").find("HTTP/1.1 401"), std::string::npos);
  EXPECT_NE(http_get(server.port(), "/metrics", "Authorization: Bearer nope\r\n").find("HTTP/1.1 401"),
            std::string::npos);
  const std::string ok = http_get(server.port(), "/metrics", "Authorization: Bearer s3cret\r\n");
  EXPECT_NE(ok.find("HTTP/1.1 200"), std::string::npos) << ok;
  EXPECT_NE(ok.find("\r\n\r\nm 1\n"), std::string::npos) << ok;
  server.stop();
}

}  // namespace
}  // namespace oomscope::live
