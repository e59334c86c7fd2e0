// Endpoint parsing and the socket helpers (see endpoint.h).

#include "core/live/protocol/endpoint.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "core/util/error.h"

namespace oomscope::live {

namespace {

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw Error(ErrorKind::InvalidArgument, {}, "endpoint '" + std::string(text) + "': " + why);
}

bool fill_unix(const std::string& path, sockaddr_un& addr, std::string& error) {
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    error = "socket path is longer than " + std::to_string(sizeof addr.sun_path - 1) + " bytes";
    return false;
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  return true;
}

addrinfo* resolve(const Endpoint& ep, bool passive, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(ep.port);
  const int rc = ::getaddrinfo(ep.host.empty() ? nullptr : ep.host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) {
    error = "cannot resolve '" + ep.host + "': " + ::gai_strerror(rc);
    return nullptr;
  }
  return res;
}

}  // namespace

std::string Endpoint::to_string() const {
  if (is_unix) return "unix:" + path;
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

bool Endpoint::is_loopback() const {
  return is_unix || host == "127.0.0.1" || host == "localhost" || host == "::1" || host.starts_with("127.");
}

Endpoint parse_endpoint(std::string_view text) {
  Endpoint ep;
  if (text.starts_with("unix:")) {
    ep.is_unix = true;
    ep.path = std::string(text.substr(5));
    if (ep.path.empty()) bad(text, "no socket path after 'unix:'");
    return ep;
  }
  std::string_view host, port;
  if (text.starts_with("[")) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      bad(text, "expected [IPV6]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) bad(text, "expected HOST:PORT or unix:PATH");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) bad(text, "no host before the port");
  int p = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (ec != std::errc() || end != port.data() + port.size() || p < 1 || p > 65535)
    bad(text, "port '" + std::string(port) + "' is not a number from 1 to 65535");
  ep.host = std::string(host);
  ep.port = p;
  return ep;
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int start_connect(const Endpoint& ep, bool& in_progress, std::string& error) {
  in_progress = false;
  if (ep.is_unix) {
    sockaddr_un addr{};
    if (!fill_unix(ep.path, addr, error)) return -1;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
      error = std::strerror(errno);
      return -1;
    }
    set_nonblocking(fd);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
    if (errno == EINPROGRESS || errno == EAGAIN) {
      in_progress = true;
      return fd;
    }
    error = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  addrinfo* res = resolve(ep, false, error);
  if (!res) return -1;
  int fd = -1;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0) continue;
    set_nonblocking(fd);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
    if (errno == EINPROGRESS) {
      in_progress = true;
      break;
    }
    error = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(res);
  return fd;
}

bool check_connected(int fd, std::string& error) {
  int err = 0;
  socklen_t len = sizeof err;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err == 0) return true;
  error = std::strerror(err);
  return false;
}

int listen_on(const Endpoint& ep, std::string& error) {
  if (ep.is_unix) {
    sockaddr_un addr{};
    if (!fill_unix(ep.path, addr, error)) return -1;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
      error = std::strerror(errno);
      return -1;
    }
    struct stat st {};
    if (::lstat(ep.path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(ep.path.c_str());
    // Created 0600 from the start: the umask covers the window between bind() and chmod().
    const mode_t old = ::umask(0177);
    const int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::umask(old);
    if (rc != 0 || ::chmod(ep.path.c_str(), 0600) != 0 || ::listen(fd, 64) != 0) {
      error = "cannot listen on " + ep.to_string() + ": " + std::strerror(errno);
      ::close(fd);
      return -1;
    }
    set_nonblocking(fd);
    return fd;
  }
  addrinfo* res = resolve(ep, true, error);
  if (!res) return -1;
  int fd = -1;
  for (addrinfo* ai = res; ai && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 64) != 0) {
      error = "cannot listen on " + ep.to_string() + ": " + std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(res);
  if (fd >= 0) set_nonblocking(fd);
  return fd;
}

int bound_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

}  // namespace oomscope::live
