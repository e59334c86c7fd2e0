// The live client's connection loop (see client.h).

#include "core/live/client/client.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/live/protocol/protocol.h"

namespace oomscope::live {

namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  int fd = -1;
  bool connecting = false;
  bool got_hello = false;
  bool ever_connected = false;
  Clock::time_point next_attempt{};
  Clock::time_point last_data{};
  int backoff_ms = 0;
  LineSplitter splitter;
  std::string out;  // auth/subscribe still to send
  std::string last_reason;
};

}  // namespace

LiveClient::LiveClient(std::vector<Endpoint> endpoints, LiveSink& sink, ClientOptions options)
    : endpoints_(std::move(endpoints)), sink_(sink), options_(std::move(options)) {}

LiveClient::~LiveClient() { stop(); }

void LiveClient::start() {
  if (thread_.joinable()) return;
  if (::pipe(wake_) != 0) wake_[0] = wake_[1] = -1;
  for (std::size_t i = 0; i < endpoints_.size(); ++i)
    sink_.on_endpoint(static_cast<int>(i), endpoints_[i].to_string());
  thread_ = std::jthread([this](const std::stop_token& st) { run(st); });
}

void LiveClient::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  if (wake_[1] >= 0) {
    const char c = 1;
    [[maybe_unused]] const auto n = ::write(wake_[1], &c, 1);
  }
  thread_.join();
  for (int& fd : wake_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

void LiveClient::run(const std::stop_token& stop) {
  std::vector<Conn> conns(endpoints_.size());
  std::vector<pollfd> fds;
  std::vector<int> owner;
  std::string buf(64 * 1024, '\0');

  auto drop = [&](std::size_t i, const std::string& reason, bool not_agent = false) {
    Conn& c = conns[i];
    if (c.fd >= 0) ::close(c.fd);
    const bool was_up = c.got_hello;
    c.fd = -1;
    c.connecting = false;
    c.got_hello = false;
    c.splitter.reset();
    c.out.clear();
    if (was_up)
      c.backoff_ms = options_.min_backoff_ms;
    else
      c.backoff_ms = not_agent
                         ? options_.max_backoff_ms
                         : std::clamp(c.backoff_ms * 2, options_.min_backoff_ms, options_.max_backoff_ms);
    c.next_attempt = Clock::now() + std::chrono::milliseconds(c.backoff_ms);
    if (was_up || reason != c.last_reason) sink_.on_disconnected(static_cast<int>(i), now_unix_ns(), reason);
    c.last_reason = reason;
  };

  auto on_line = [&](std::size_t i, std::string_view line) {
    Conn& c = conns[i];
    const int rank = static_cast<int>(i);
    counters_.lines.fetch_add(1, std::memory_order_relaxed);
    ParseResult r = parse_line(line);
    if (!c.got_hello) {
      if (!r.message || !std::holds_alternative<Hello>(*r.message)) {
        std::string first(line.substr(0, 60));
        for (char& ch : first)
          if (static_cast<unsigned char>(ch) < 32 || static_cast<unsigned char>(ch) > 126) ch = '?';
        drop(i, "not an oomscope agent: its first line is not a hello (\"" + first + "\")", true);
        return false;
      }
      c.got_hello = true;
      c.ever_connected = true;
      c.last_reason.clear();
      counters_.connects.fetch_add(1, std::memory_order_relaxed);
      sink_.on_connected(rank, now_unix_ns());
      sink_.on_hello(rank, std::get<Hello>(*r.message));
      return true;
    }
    if (!r.message) {
      counters_.bad_lines.fetch_add(1, std::memory_order_relaxed);
      sink_.on_bad_line(rank, now_unix_ns(), r.error);
      return true;
    }
    std::visit(
        [&](auto& m) {
          using T = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<T, Sample>)
            sink_.on_sample(rank, m);
          else if constexpr (std::is_same_v<T, Event>)
            sink_.on_event(rank, m);
          else if constexpr (std::is_same_v<T, Shapes>)
            sink_.on_shapes(rank, m);
          else if constexpr (std::is_same_v<T, Hello>)
            sink_.on_hello(rank, m);
          // auth, subscribe and unknown types from an agent are ignored
        },
        *r.message);
    return true;
  };

  while (!stop.stop_requested()) {
    const auto now = Clock::now();
    fds.clear();
    owner.clear();
    if (wake_[0] >= 0) {
      fds.push_back(pollfd{wake_[0], POLLIN, 0});
      owner.push_back(-1);
    }
    auto next_wake = now + std::chrono::milliseconds(500);
    for (std::size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      if (c.fd < 0 && now >= c.next_attempt) {
        std::string error;
        bool in_progress = false;
        c.fd = start_connect(endpoints_[i], in_progress, error);
        if (c.fd < 0) {
          drop(i, "cannot connect to " + endpoints_[i].to_string() + ": " + error);
        } else {
          c.connecting = in_progress;
          c.last_data = now;
          if (!options_.token.empty()) c.out += write_line(Auth{options_.token});
          if (options_.interval_ms > 0) c.out += write_line(Subscribe{options_.interval_ms});
        }
      }
      if (c.fd < 0) {
        next_wake = std::min(next_wake, c.next_attempt);
        continue;
      }
      if (now - c.last_data > std::chrono::milliseconds(options_.stall_timeout_ms)) {
        drop(i, c.got_hello ? "agent sent nothing for " + std::to_string(options_.stall_timeout_ms) + " ms"
                            : "no hello within " + std::to_string(options_.stall_timeout_ms) + " ms");
        continue;
      }
      short ev = POLLIN;
      if (c.connecting || !c.out.empty()) ev |= POLLOUT;
      fds.push_back(pollfd{c.fd, ev, 0});
      owner.push_back(static_cast<int>(i));
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_wake - Clock::now()).count();
    const int rc = ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait, 0, 500)));
    if (rc < 0 && errno != EINTR) break;
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      if (owner[k] < 0) {
        char tmp[16];
        [[maybe_unused]] const auto n = ::read(wake_[0], tmp, sizeof tmp);
        continue;
      }
      const auto i = static_cast<std::size_t>(owner[k]);
      Conn& c = conns[i];
      if (c.connecting && (fds[k].revents & (POLLOUT | POLLERR | POLLHUP))) {
        std::string error;
        if (!check_connected(c.fd, error)) {
          drop(i, "cannot connect to " + endpoints_[i].to_string() + ": " + error);
          continue;
        }
        c.connecting = false;
      }
      if (!c.out.empty() && (fds[k].revents & POLLOUT)) {
        const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (n > 0) c.out.erase(0, static_cast<std::size_t>(n));
      }
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t n = ::recv(c.fd, buf.data(), buf.size(), 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
          std::string reason =
              n == 0 ? "agent closed the connection" : std::string("read error: ") + std::strerror(errno);
          if (c.splitter.pending() > 0)
            reason += " (mid-line; " + std::to_string(c.splitter.pending()) + " bytes lost)";
          if (n == 0 && !c.got_hello) reason += " before its hello (does it need a token?)";
          drop(i, reason);
          continue;
        }
        if (n < 0) continue;
        counters_.bytes.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
        c.last_data = Clock::now();
        bool alive = true;
        c.splitter.feed(
            std::string_view(buf.data(), static_cast<std::size_t>(n)),
            [&](std::string_view line) {
              if (alive) alive = on_line(i, line);
            },
            [&](std::size_t size) {
              if (!alive) return;
              counters_.bad_lines.fetch_add(1, std::memory_order_relaxed);
              sink_.on_bad_line(static_cast<int>(i), now_unix_ns(),
                                "line of " + std::to_string(size) + " bytes is over the " +
                                    std::to_string(kMaxLineBytes) + "-byte limit; skipped");
            });
        if (!alive) c.splitter.reset();
      }
    }
  }
  for (std::size_t i = 0; i < conns.size(); ++i)
    if (conns[i].fd >= 0) ::close(conns[i].fd);
}

}  // namespace oomscope::live
