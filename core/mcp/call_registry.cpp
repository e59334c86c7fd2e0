// Tool calls on worker threads (call_registry.h).

#include "core/mcp/call_registry.h"

#include <vector>

namespace oomscope::mcp {

CallRegistry::~CallRegistry() { stop_all(); }

void CallRegistry::reap() {
  for (auto it = calls_.begin(); it != calls_.end();) {
    if (it->second->done.load()) {
      if (it->second->thread.joinable()) it->second->thread.join();
      it = calls_.erase(it);
    } else {
      ++it;
    }
  }
}

CallRegistry::Start CallRegistry::start(const std::string& key, Work work) {
  std::lock_guard lock(mutex_);
  reap();
  if (calls_.count(key)) return Start::DuplicateId;
  if (calls_.size() >= max_running_) return Start::Busy;
  auto call = std::make_shared<Call>();
  calls_[key] = call;
  Call* raw = call.get();
  raw->thread = std::thread([call, work = std::move(work)] {
    const std::function<bool()> cancelled = [&call] { return call->cancelled.load(); };
    const std::function<void()> deliver = work(call->stop.get_token(), cancelled);
    call->done.store(true);
    if (deliver) deliver();
  });
  return Start::Started;
}

bool CallRegistry::cancel(const std::string& key) {
  std::lock_guard lock(mutex_);
  const auto it = calls_.find(key);
  if (it == calls_.end() || it->second->done.load()) return false;
  it->second->cancelled.store(true);
  it->second->stop.request_stop();
  return true;
}

void CallRegistry::stop_all() {
  std::vector<std::shared_ptr<Call>> all;
  {
    std::lock_guard lock(mutex_);
    for (auto& [key, call] : calls_) {
      call->stop.request_stop();
      all.push_back(call);
    }
    calls_.clear();
  }
  for (auto& call : all)
    if (call->thread.joinable()) call->thread.join();
}

std::size_t CallRegistry::running() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [key, call] : calls_) n += !call->done.load();
  return n;
}

}  // namespace oomscope::mcp
