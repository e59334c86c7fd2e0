// The C++ agent server (see agent_server.h).

#include "core/live/agent/agent_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/live/agent/metrics_http.h"
#include "core/live/protocol/sink.h"
#include "core/util/error.h"

namespace oomscope::live {

namespace {
using Clock = std::chrono::steady_clock;
}

struct AgentServer::Client {
  int fd = -1;
  bool authed = false;
  bool hello_sent = false;
  int interval_ms = 100;
  Clock::time_point accepted{};
  Clock::time_point next_due{};
  std::string out;
  LineSplitter in{4096};
  bool close = false;
};

bool tokens_equal(std::string_view a, std::string_view b) noexcept {
  const std::size_t n = std::max(a.size(), b.size());
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

AgentServer::AgentServer(AgentOptions options) : options_(std::move(options)) {
  if (options_.hello.pid == 0) options_.hello.pid = ::getpid();
  if (options_.hello.host.empty()) {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    options_.hello.host = name;
  }
  options_.interval_ms = std::clamp(options_.interval_ms, 1, 3'600'000);
  labels_.rank = options_.hello.rank;
  labels_.host = options_.hello.host;
  labels_.device = !options_.device_label.empty()   ? options_.device_label
                   : options_.hello.backend.empty() ? std::string("cpu")
                                                    : options_.hello.backend;
  labels_.job = options_.job;
  if (const char* j = std::getenv("OOMSCOPE_JOB"); labels_.job.empty() && j) labels_.job = j;
  labels_.local_rank = options_.local_rank;
  if (const char* lr = std::getenv("LOCAL_RANK"); !labels_.local_rank && lr && *lr) {
    char* end = nullptr;
    const long v = std::strtol(lr, &end, 10);
    if (*end == '\0' && v >= 0 && v < 1'000'000) labels_.local_rank = static_cast<int>(v);
  }
  if (!labels_.local_rank && options_.hello.world_size == 1) labels_.local_rank = options_.hello.rank;
}

AgentServer::~AgentServer() { stop(); }

void AgentServer::log(const std::string& message) const {
  if (options_.log)
    options_.log(message);
  else
    std::fprintf(stderr, "oomscope-agent: %s\n", message.c_str());
}

void AgentServer::add_source(std::unique_ptr<StatsSource> source) {
  sources_.push_back(std::move(source));
  source_failed_.push_back(false);
}

Endpoint AgentServer::endpoint() const {
  Endpoint ep = options_.listen;
  if (!ep.is_unix) ep.port = port_;
  return ep;
}

void AgentServer::start() {
  if (thread_.joinable()) return;
  if (!options_.listen.is_loopback() && options_.token.empty())
    throw Error(ErrorKind::InvalidArgument, {},
                "listening on " + options_.listen.to_string() + " (not loopback) needs a token");
  std::string error;
  listen_fd_ = listen_on(options_.listen, error);
  if (listen_fd_ < 0) throw Error(ErrorKind::Io, {}, error);
  port_ = options_.listen.is_unix ? 0 : bound_port(listen_fd_);
  if (options_.metrics) {
    try {
      metrics_ = std::make_unique<MetricsHttpServer>(
          *options_.metrics, options_.token, [this] { return render_metrics(metrics_state(), labels_); });
    } catch (...) {
      ::close(listen_fd_);
      listen_fd_ = -1;
      throw;
    }
  }
  if (::pipe(wake_) != 0) wake_[0] = wake_[1] = -1;
  for (int fd : wake_)
    if (fd >= 0) set_nonblocking(fd);
  thread_ = std::jthread([this](std::stop_token st) { run(st); });
}

std::string AgentServer::metrics_endpoint() const { return metrics_ ? metrics_->endpoint() : std::string(); }

MetricsState AgentServer::metrics_state() const {
  MetricsState st;
  st.agent = "cpp";
  st.backend = options_.hello.backend;
  st.total_bytes = options_.hello.total_bytes;
  st.stats_endpoint = endpoint().to_string();
  st.dropped = counters_.dropped_lines.load(std::memory_order_relaxed);
  {
    std::lock_guard lock(latest_mutex_);
    st.latest = latest_;
    st.events = event_kinds_;
  }
  {
    std::lock_guard lock(pending_mutex_);
    if (shapes_so_far_.t != 0) st.distinct_shapes = shapes_so_far_.distinct;
  }
  return st;
}

void AgentServer::stop() {
  if (metrics_) metrics_->stop();
  if (!thread_.joinable()) return;
  thread_.request_stop();
  if (wake_[1] >= 0) {
    const char c = 1;
    [[maybe_unused]] const auto n = ::write(wake_[1], &c, 1);
  }
  thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (options_.listen.is_unix) ::unlink(options_.listen.path.c_str());
  for (int& fd : wake_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  listen_fd_ = -1;
}

void AgentServer::set_step(std::int64_t step, std::int64_t micro) {
  step_.store(step, std::memory_order_relaxed);
  micro_.store(micro, std::memory_order_relaxed);
}

void AgentServer::post_event(Event event) {
  if (event.t == 0) event.t = now_unix_ns();
  {
    std::lock_guard lock(latest_mutex_);
    if (event_kinds_.size() < 32 || event_kinds_.count(event.kind)) ++event_kinds_[event.kind];
  }
  std::string line = write_line(event);
  {
    std::lock_guard lock(pending_mutex_);
    recent_events_.push_back(line);
    if (recent_events_.size() > 64) recent_events_.erase(recent_events_.begin());
    if (pending_.size() < 1024)
      pending_.push_back(std::move(line));
    else
      counters_.dropped_lines.fetch_add(1, std::memory_order_relaxed);
  }
  if (wake_[1] >= 0) {
    const char c = 1;
    [[maybe_unused]] const auto n = ::write(wake_[1], &c, 1);
  }
}

void AgentServer::post_shapes(Shapes shapes) {
  if (shapes.t == 0) shapes.t = now_unix_ns();
  std::string line = write_line(shapes);
  std::lock_guard lock(pending_mutex_);
  shapes_so_far_.t = shapes.t;
  shapes_so_far_.distinct = shapes.distinct;
  shapes_so_far_.last = shapes.last;
  for (auto& f : shapes.fresh)
    if (shapes_so_far_.fresh.size() < 4096) shapes_so_far_.fresh.push_back(f);
  if (pending_.size() < 1024)
    pending_.push_back(std::move(line));
  else
    counters_.dropped_lines.fetch_add(1, std::memory_order_relaxed);
}

void AgentServer::run(std::stop_token stop) {
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<pollfd> fds;
  Clock::time_point own_next = Clock::now();
  const std::string hello_line = write_line(options_.hello);
  const bool need_token = !options_.token.empty();
  auto history = [&] {
    std::lock_guard lock(pending_mutex_);
    std::string h;
    if (shapes_so_far_.t != 0) h += write_line(shapes_so_far_);
    for (const auto& e : recent_events_) h += e;
    return h;
  };

  auto queue = [&](Client& c, const std::string& line) {
    if (c.out.size() + line.size() > options_.max_queue_bytes) {
      counters_.dropped_lines.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    c.out += line;
  };

  while (!stop.stop_requested()) {
    const auto now = Clock::now();
    // Sample when any client is due.
    // With /metrics on, the agent also samples on its own every interval (a scrape reads the latest).
    bool due = metrics_ && now >= own_next;
    auto next = metrics_ && !due ? own_next : now + std::chrono::milliseconds(options_.interval_ms);
    for (const auto& c : clients) {
      if (!c->hello_sent) continue;
      if (now >= c->next_due)
        due = true;
      else
        next = std::min(next, c->next_due);
    }
    if (due) {
      Sample s;
      s.t = now_unix_ns();
      if (const auto st = step_.load(std::memory_order_relaxed); st >= 0) s.set(Field::Step, st);
      if (const auto mi = micro_.load(std::memory_order_relaxed); mi >= 0) s.set(Field::Micro, mi);
      for (std::size_t i = 0; i < sources_.size(); ++i) {
        try {
          sources_[i]->fill(s);
        } catch (const std::exception& e) {
          counters_.source_errors.fetch_add(1, std::memory_order_relaxed);
          if (!source_failed_[i]) log("stats source '" + sources_[i]->name() + "' failed: " + e.what());
          source_failed_[i] = true;
        }
      }
      const std::string line = write_line(s);
      counters_.samples.fetch_add(1, std::memory_order_relaxed);
      {
        std::lock_guard lock(latest_mutex_);
        latest_ = s;
      }
      own_next = now + std::chrono::milliseconds(options_.interval_ms);  // a client's sample counts too
      for (auto& c : clients) {
        if (!c->hello_sent || now < c->next_due) continue;
        queue(*c, line);
        c->next_due = now + std::chrono::milliseconds(c->interval_ms);
        next = std::min(next, c->next_due);
      }
    }
    {
      std::vector<std::string> lines;
      {
        std::lock_guard lock(pending_mutex_);
        lines.swap(pending_);
      }
      for (const auto& line : lines)
        for (auto& c : clients)
          if (c->hello_sent) queue(*c, line);
    }

    fds.clear();
    fds.push_back(pollfd{listen_fd_, POLLIN, 0});
    fds.push_back(pollfd{wake_[0], POLLIN, 0});
    for (const auto& c : clients) {
      short ev = POLLIN;
      if (!c->out.empty()) ev |= POLLOUT;
      fds.push_back(pollfd{c->fd, ev, 0});
      if (need_token && !c->authed)
        next = std::min(next, c->accepted + std::chrono::milliseconds(options_.auth_timeout_ms));
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
    const int rc = ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait, 0, 1000)));
    if (rc < 0 && errno != EINTR) {
      log(std::string("poll failed: ") + std::strerror(errno));
      break;
    }
    if (fds[1].revents) {
      char tmp[64];
      while (::read(wake_[0], tmp, sizeof tmp) > 0) {
      }
    }
    for (std::size_t k = 0; k < clients.size(); ++k) {
      Client& c = *clients[k];
      const short re = fds[k + 2].revents;
      if (re & (POLLIN | POLLHUP | POLLERR)) {
        char buf[4096];
        const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
          c.close = true;
          continue;
        }
        if (n > 0) {
          c.in.feed(
              std::string_view(buf, static_cast<std::size_t>(n)),
              [&](std::string_view line) {
                const ParseResult r = parse_line(line);
                if (need_token && !c.authed) {
                  const Auth* a = r.message ? std::get_if<Auth>(&*r.message) : nullptr;
                  if (a && tokens_equal(a->token, options_.token)) {
                    c.authed = true;
                  } else {
                    counters_.auth_failures.fetch_add(1, std::memory_order_relaxed);
                    log(a ? "closed a connection: wrong token"
                          : "closed a connection: its first line was not an auth");
                    c.close = true;
                  }
                  return;
                }
                if (r.message)
                  if (const auto* sub = std::get_if<Subscribe>(&*r.message)) {
                    c.interval_ms = std::max(10, sub->interval_ms);
                    c.next_due =
                        std::min(c.next_due, Clock::now() + std::chrono::milliseconds(c.interval_ms));
                  }
              },
              [&](std::size_t) {
                if (need_token && !c.authed) {
                  counters_.auth_failures.fetch_add(1, std::memory_order_relaxed);
                  log("closed a connection: oversized first line instead of an auth");
                  c.close = true;
                }
              });
        }
      }
      if (need_token && !c.authed && !c.close &&
          Clock::now() - c.accepted > std::chrono::milliseconds(options_.auth_timeout_ms)) {
        counters_.auth_failures.fetch_add(1, std::memory_order_relaxed);
        log("closed a connection: no auth within " + std::to_string(options_.auth_timeout_ms) + " ms");
        c.close = true;
      }
      if (!c.close && c.authed && !c.hello_sent) {
        c.out.insert(0, hello_line + history());
        c.hello_sent = true;
        c.next_due = Clock::now();
      }
      if (!c.close && !c.out.empty()) {
        const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0)
          c.out.erase(0, static_cast<std::size_t>(n));
        else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
          c.close = true;
      }
    }
    std::erase_if(clients, [](const std::unique_ptr<Client>& c) {
      if (c->close) ::close(c->fd);
      return c->close;
    });
    if (fds[0].revents & POLLIN) {
      for (;;) {
        const int fd = ::accept(listen_fd_, nullptr, nullptr);
        if (fd < 0) break;
        set_nonblocking(fd);
        auto c = std::make_unique<Client>();
        c->fd = fd;
        c->authed = !need_token;
        c->interval_ms = options_.interval_ms;
        c->accepted = Clock::now();
        if (!need_token) {
          c->out = hello_line + history();
          c->hello_sent = true;
          c->next_due = c->accepted;
        }
        counters_.accepted.fetch_add(1, std::memory_order_relaxed);
        clients.push_back(std::move(c));
      }
    }
    counters_.clients.store(clients.size(), std::memory_order_relaxed);
  }
  // Stopping (the trainer is done): a last sample and whatever was posted, one best-effort send each.
  Sample last;
  last.t = now_unix_ns();
  if (const auto st = step_.load(std::memory_order_relaxed); st >= 0) last.set(Field::Step, st);
  if (const auto mi = micro_.load(std::memory_order_relaxed); mi >= 0) last.set(Field::Micro, mi);
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    try {
      sources_[i]->fill(last);
    } catch (const std::exception&) {
    }
  }
  std::string tail;
  {
    std::lock_guard lock(pending_mutex_);
    for (const auto& line : pending_) tail += line;
    pending_.clear();
  }
  tail += write_line(last);
  for (auto& c : clients) {
    if (c->hello_sent) {
      queue(*c, tail);
      if (!c->out.empty()) [[maybe_unused]]
        const auto n = ::send(c->fd, c->out.data(), c->out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    ::close(c->fd);
  }
}

}  // namespace oomscope::live
