#pragma once
// Endpoints of live agents: "HOST:PORT" (TCP; HOST may be a name, an IPv4 address or [IPv6]) or
// "unix:PATH" (a Unix domain socket), and the small socket helpers both the client and the agent use.

#include <string>
#include <string_view>

namespace oomscope::live {

struct Endpoint {
  bool is_unix = false;
  std::string host;  // TCP
  int port = 0;      // TCP
  std::string path;  // Unix

  std::string to_string() const;
  bool is_loopback() const;  // unix sockets count as loopback
};

// Throws oomscope::Error(InvalidArgument) naming the text and the problem.
Endpoint parse_endpoint(std::string_view text);

// A non-blocking socket with connect() started. Returns the fd (>= 0) or -1 with `error` set.
// `in_progress` is set when the connect has not finished yet (poll for POLLOUT, then check_connected).
int start_connect(const Endpoint& ep, bool& in_progress, std::string& error);
// After POLLOUT: true when connected, else false with the reason.
bool check_connected(int fd, std::string& error);

// A listening, non-blocking socket. TCP binds ep.host:ep.port (port 0 picks one; see bound_port);
// Unix sockets are created with mode 0600 (an old socket file at the path is replaced).
int listen_on(const Endpoint& ep, std::string& error);
int bound_port(int fd);

void set_nonblocking(int fd);

}  // namespace oomscope::live
