// PrometheusSource's thread against servers that never answer: a port with nothing listening (the error is
// published and retried, no sink call is made) and one that accepts the request but never replies (stop()
// cancels the request in flight instead of waiting for its timeout). Both run under ThreadSanitizer in the
// dev-tsan suite; the data path with a real Prometheus is covered by tests/live/test_prometheus_*.py.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "core/live/prom/prom_source.h"

namespace oomscope::live {
namespace {

class CountingSink final : public LiveSink {
 public:
  void on_endpoint(int, const std::string&) override { ++calls; }
  void on_hello(int, const Hello&) override { ++calls; }
  void on_sample(int, const Sample&) override { ++calls; }
  void on_event(int, const Event&) override { ++calls; }
  void on_shapes(int, const Shapes&) override { ++calls; }
  void on_disconnected(int, std::int64_t, const std::string&) override { ++calls; }
  void on_connected(int, std::int64_t) override { ++calls; }
  void on_bad_line(int, std::int64_t, const std::string&) override { ++calls; }
  std::atomic<int> calls{0};
};

// A loopback TCP socket bound to a free port; listening or not.
class Socket {
 public:
  explicit Socket(bool listening) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
        (listening && ::listen(fd_, 8) != 0) ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("no loopback socket");
    port_ = ntohs(a.sin_port);
  }
  ~Socket() {
    if (peer_ >= 0) ::close(peer_);
    ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Accepts one connection and reads until the end of a request's headers; keeps the connection open and
  // never answers. False when no request came.
  bool take_request() {
    peer_ = ::accept(fd_, nullptr, nullptr);
    if (peer_ < 0) return false;
    std::string got;
    char buf[4096];
    while (got.find("\r\n\r\n") == std::string::npos) {
      const auto n = ::recv(peer_, buf, sizeof buf, 0);
      if (n <= 0) return false;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got.starts_with("POST /api/v1/");
  }

 private:
  int fd_ = -1, peer_ = -1;
  int port_ = 0;
};

template <class Pred>
bool wait_for(Pred pred, int ms = 20'000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(PrometheusSourceThread, RefusedConnectionIsPublishedAndRetriedUntilStopped) {
  const Socket bound(false);  // bound but not listening: connections are refused
  CountingSink sink;
  PromOptions options;
  options.poll_ms = 50;
  PrometheusSource source(bound.url(), sink, options);
  source.start();
  ASSERT_TRUE(wait_for([&] { return source.status().requests >= 2; }))
      << "the thread did not retry; last error: " << source.status().error;
  const PromStatus status = source.status();
  EXPECT_EQ(status.phase, "reading history");
  EXPECT_NE(status.error.find(bound.url()), std::string::npos) << status.error;
  EXPECT_TRUE(source.ranks().empty());
  source.stop();
  EXPECT_EQ(source.status().phase, "stopped");
  EXPECT_EQ(sink.calls.load(), 0);
}

TEST(PrometheusSourceThread, StopCancelsARequestThatIsNeverAnswered) {
  Socket silent(true);  // the kernel accepts connections; nobody ever reads or answers
  CountingSink sink;
  PromOptions options;
  options.timeout_ms = 120'000;  // far longer than the bound below: only a cancel ends the request early
  PrometheusSource source(silent.url(), sink, options);
  source.start();
  ASSERT_TRUE(silent.take_request());  // the request is now in flight, waiting for an answer
  const auto t0 = std::chrono::steady_clock::now();
  source.stop();
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(waited, std::chrono::seconds(60)) << "stop() waited for the request's timeout";
  EXPECT_EQ(source.status().phase, "stopped");
  EXPECT_EQ(sink.calls.load(), 0);
}

}  // namespace
}  // namespace oomscope::live
