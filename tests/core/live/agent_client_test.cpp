// The C++ agent server and the client over real loopback and Unix sockets: samples from a stats source,
// events, re-attachment after the agent restarts (the gap is marked), token checks, refusing a
// non-loopback address without a token, and the Unix socket's mode.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/live/agent/agent_server.h"
#include "core/live/client/client.h"
#include "core/live/client/session.h"
#include "core/util/error.h"

namespace oomscope::live {
namespace {

class CountingSource final : public StatsSource {
 public:
  std::string name() const override { return "counting"; }
  void fill(Sample& s) override {
    ++n_;
    s.set(Field::Allocated, n_ * 1000);
    s.set(Field::Reserved, n_ * 2000);
  }

 private:
  std::int64_t n_ = 0;
};

template <class Pred>
bool wait_for(const LiveSession& session, Pred pred, int ms = 5000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
    if (session.read([&](const Store& s, const AlertEngine&) { return pred(s); })) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

ClientOptions fast_retry(std::string token) {
  ClientOptions o;
  o.token = std::move(token);
  o.min_backoff_ms = 50;
  o.max_backoff_ms = 100;
  return o;
}

AgentOptions quiet(AgentOptions o, std::vector<std::string>* log = nullptr) {
  o.interval_ms = 20;
  o.log = [log](const std::string& m) {
    if (log) log->push_back(m);
  };
  return o;
}

TEST(LiveAgentClient, SamplesEventsAndReattach) {
  AgentOptions opts = quiet({});
  opts.hello.backend = "cpu";
  auto agent = std::make_unique<AgentServer>(opts);
  agent->add_source(std::make_unique<CountingSource>());
  agent->start();
  const int port = agent->port();
  ASSERT_GT(port, 0);

  LiveSession session;
  LiveClient client({Endpoint{false, "127.0.0.1", port, {}}}, session, fast_retry(""));
  client.start();
  agent->set_step(41);
  ASSERT_TRUE(wait_for(
      session, [](const Store& s) { return !s.ranks().empty() && s.ranks()[0].samples.size() >= 5; }));
  agent->post_event(Event{0, "checkpoint", "saved", "", 41});
  ASSERT_TRUE(wait_for(session, [](const Store& s) { return !s.ranks()[0].events.empty(); }));
  session.read([](const Store& s, const AlertEngine&) {
    const RankSeries& r = s.ranks()[0];
    EXPECT_EQ(r.hello->backend, "cpu");
    EXPECT_EQ(r.samples.back().get(Field::Step), 41);
    EXPECT_EQ(r.samples.back().get(Field::Reserved), 2 * r.samples.back().get(Field::Allocated));
    EXPECT_EQ(r.events[0].kind, "checkpoint");
    return 0;
  });

  // Kill the agent, start a new one on the same port: the client re-attaches and the gap is marked.
  agent.reset();
  ASSERT_TRUE(wait_for(session, [](const Store& s) { return !s.ranks()[0].connected; }));
  opts.listen.port = port;
  agent = std::make_unique<AgentServer>(opts);
  agent->add_source(std::make_unique<CountingSource>());
  agent->start();
  ASSERT_TRUE(wait_for(session, [](const Store& s) {
    const auto& r = s.ranks()[0];
    return r.connected && r.gaps.size() == 1 && r.gaps[0].to != 0;
  }));
  client.stop();
}

TEST(LiveAgentClient, TokenIsCheckedAndAWrongOneCloses) {
  std::vector<std::string> log;
  AgentOptions opts = quiet({}, &log);
  opts.token = "s3cret";
  AgentServer agent(opts);
  agent.start();
  const Endpoint ep{false, "127.0.0.1", agent.port(), {}};

  LiveSession wrong;
  LiveClient bad({ep}, wrong, fast_retry("guess"));
  bad.start();
  ASSERT_TRUE(
      wait_for(wrong, [](const Store& s) { return !s.ranks().empty() && !s.ranks()[0].status.empty(); }));
  bad.stop();
  wrong.read([](const Store& s, const AlertEngine&) {
    EXPECT_TRUE(s.ranks()[0].samples.empty());
    EXPECT_NE(s.ranks()[0].status.find("before its hello"), std::string::npos) << s.ranks()[0].status;
    return 0;
  });
  EXPECT_GE(agent.counters().auth_failures.load(), 1u);

  LiveSession right;
  LiveClient good({ep}, right, fast_retry("s3cret"));
  good.start();
  ASSERT_TRUE(
      wait_for(right, [](const Store& s) { return !s.ranks().empty() && s.ranks()[0].samples.size() >= 2; }));
  good.stop();
  agent.stop();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log[0], "closed a connection: wrong token");
  EXPECT_TRUE(tokens_equal("abc", "abc"));
  EXPECT_FALSE(tokens_equal("abc", "abd"));
  EXPECT_FALSE(tokens_equal("abc", "abcd"));
}

TEST(LiveAgentClient, OtherAddressesNeedAToken) {
  AgentOptions opts = quiet({});
  opts.listen.host = "0.0.0.0";
  AgentServer agent(opts);
  try {
    agent.start();
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs a token"), std::string::npos) << e.what();
  }
}

TEST(LiveAgentClient, UnixSocketIsPrivate) {
  const std::string path = "/tmp/oomscope-live-test-" + std::to_string(::getpid()) + ".sock";
  AgentOptions opts = quiet({});
  opts.listen = parse_endpoint("unix:" + path);
  AgentServer agent(opts);
  agent.start();
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  LiveSession session;
  LiveClient client({parse_endpoint("unix:" + path)}, session);
  client.start();
  ASSERT_TRUE(wait_for(
      session, [](const Store& s) { return !s.ranks().empty() && s.ranks()[0].samples.size() >= 2; }));
  client.stop();
  agent.stop();
  EXPECT_NE(::access(path.c_str(), F_OK), 0);  // removed on stop
}

TEST(LiveEndpoint, ParsesAndRejects) {
  EXPECT_EQ(parse_endpoint("127.0.0.1:7070").port, 7070);
  EXPECT_EQ(parse_endpoint("[::1]:80").host, "::1");
  EXPECT_TRUE(parse_endpoint("unix:/tmp/x").is_unix);
  for (const char* bad : {"7070", "host:", "host:0", "host:70000", "unix:", ":80", "h:12x"})
    EXPECT_THROW(parse_endpoint(bad), Error) << bad;
}

}  // namespace
}  // namespace oomscope::live
