// The session recorder (see recorder.h).

#include "core/live/client/recorder.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>

#include "core/util/error.h"

namespace oomscope::live {

Recorder::Recorder(std::string path, int flush_ms) : path_(std::move(path)), flush_ms_(flush_ms) {
  file_ = ::gzopen(path_.c_str(), "wb6");
  if (!file_)
    throw Error(ErrorKind::Io, path_, std::string("cannot create the recording: ") + std::strerror(errno));
  ::gzbuffer(file_, 64 * 1024);
  append(std::string(rec::kMagic));
  ::gzflush(file_, Z_SYNC_FLUSH);
  dirty_ = false;
  flusher_ = std::jthread([this](const std::stop_token& st) {
    std::mutex m;
    std::condition_variable_any cv;
    while (!st.stop_requested()) {
      {
        std::unique_lock lock(m);
        cv.wait_for(lock, st, std::chrono::milliseconds(flush_ms_), [] { return false; });
      }
      std::lock_guard lock(mutex_);
      if (file_ && dirty_) {
        ::gzflush(file_, Z_SYNC_FLUSH);
        dirty_ = false;
      }
    }
  });
}

Recorder::~Recorder() { close(); }

void Recorder::close() {
  if (flusher_.joinable()) {
    flusher_.request_stop();
    flusher_.join();
  }
  std::lock_guard lock(mutex_);
  if (file_) {
    ::gzclose(file_);
    file_ = nullptr;
  }
}

std::uint64_t Recorder::bytes_written() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.st_size);
}

void Recorder::append(const std::string& record) {
  if (!file_) return;
  ::gzwrite(file_, record.data(), static_cast<unsigned>(record.size()));
  dirty_ = true;
}

void Recorder::text_record(rec::Kind kind, int rank, std::int64_t t, const std::string& text) {
  std::lock_guard lock(mutex_);
  scratch_.clear();
  scratch_.push_back(static_cast<char>(kind));
  rec::put_varint(scratch_, static_cast<std::uint64_t>(rank));
  rec::put_varint(scratch_, static_cast<std::uint64_t>(t));
  rec::put_varint(scratch_, text.size());
  scratch_ += text;
  append(scratch_);
}

void Recorder::line_record(int rank, std::string line) {
  if (!line.empty() && line.back() == '\n') line.pop_back();
  std::lock_guard lock(mutex_);
  scratch_.clear();
  scratch_.push_back(static_cast<char>(rec::Kind::Line));
  rec::put_varint(scratch_, static_cast<std::uint64_t>(rank));
  rec::put_varint(scratch_, line.size());
  scratch_ += line;
  append(scratch_);
}

void Recorder::on_endpoint(int rank, const std::string& endpoint) {
  text_record(rec::Kind::Endpoint, rank, 0, endpoint);
}
void Recorder::on_hello(int rank, const Hello& hello) { line_record(rank, write_line(hello)); }
void Recorder::on_event(int rank, const Event& event) { line_record(rank, write_line(event)); }
void Recorder::on_shapes(int rank, const Shapes& shapes) { line_record(rank, write_line(shapes)); }
void Recorder::on_disconnected(int rank, std::int64_t t, const std::string& reason) {
  text_record(rec::Kind::Disconnected, rank, t, reason);
}
void Recorder::on_connected(int rank, std::int64_t t) { text_record(rec::Kind::Connected, rank, t, {}); }
void Recorder::on_bad_line(int rank, std::int64_t t, const std::string& error) {
  text_record(rec::Kind::BadLine, rank, t, error);
}

void Recorder::on_sample(int rank, const Sample& s) {
  std::lock_guard lock(mutex_);
  if (rank < 0) return;
  if (static_cast<std::size_t>(rank) >= state_.size()) state_.resize(static_cast<std::size_t>(rank) + 1);
  rec::DeltaState& d = state_[static_cast<std::size_t>(rank)];
  scratch_.clear();
  scratch_.push_back(static_cast<char>(rec::Kind::Sample));
  rec::put_varint(scratch_, static_cast<std::uint64_t>(rank));
  rec::put_varint(scratch_, rec::zigzag(rec::wrap_sub(s.t, d.t)));
  d.t = s.t;
  rec::put_varint(scratch_, s.present);
  for (std::size_t i = 0; i < kFieldCount; ++i) {
    if (!s.has(static_cast<Field>(i))) continue;
    rec::put_varint(scratch_, rec::zigzag(rec::wrap_sub(s.values[i], d.values[i])));
    d.values[i] = s.values[i];
  }
  append(scratch_);
}

}  // namespace oomscope::live
