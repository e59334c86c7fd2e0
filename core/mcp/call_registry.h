#pragma once
// The tool calls in flight, each on a thread of its own so that the reader keeps reading: a ping, a
// tools/list or another call is answered while a long call runs, and notifications/cancelled reaches the
// call it names. A call is known by its request id (json_rpc.h, id_key) until its thread has finished.

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

namespace oomscope::mcp {

class CallRegistry {
 public:
  // What a call's thread runs: `stop` is requested on cancellation or shutdown; `cancelled()` tells the
  // two apart (a cancelled call sends no answer). It returns what delivers the answer, run once the call
  // no longer counts as running, so that a client that sends its next call on reading the answer never
  // finds the slot still taken.
  using Work =
      std::function<std::function<void()>(std::stop_token stop, const std::function<bool()>& cancelled)>;
  enum class Start { Started, Busy, DuplicateId };

  explicit CallRegistry(std::size_t max_running) : max_running_(max_running) {}
  ~CallRegistry();
  CallRegistry(const CallRegistry&) = delete;
  CallRegistry& operator=(const CallRegistry&) = delete;

  Start start(const std::string& key, Work work);
  // True when the call was still running (it is asked to stop and will send nothing).
  bool cancel(const std::string& key);
  // Asks every call to stop (not as a cancellation: they still answer) and waits for all threads.
  void stop_all();
  std::size_t running() const;
  std::size_t max_running() const { return max_running_; }

 private:
  struct Call {
    std::stop_source stop;
    std::atomic<bool> cancelled{false};
    std::atomic<bool> done{false};
    std::thread thread;
  };
  void reap();  // joins finished threads; with mutex_ held

  std::size_t max_running_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Call>> calls_;
};

}  // namespace oomscope::mcp
