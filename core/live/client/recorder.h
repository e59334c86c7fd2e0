#pragma once
// Records a live session to an append-only file (format: recording_format.h), flushed to the operating
// system at most about a second after anything was written, so a crash of the debugger or the trainer
// loses at most the last second. A LiveSink: put it behind the client (LiveSession does).

#include <zlib.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/live/client/recording_format.h"
#include "core/live/protocol/sink.h"

namespace oomscope::live {

class Recorder final : public LiveSink {
 public:
  // Creates (truncates) the file; throws oomscope::Error naming it when it cannot.
  explicit Recorder(std::string path, int flush_ms = 900);
  ~Recorder() override;  // flushes and closes
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void on_endpoint(int rank, const std::string& endpoint) override;
  void on_hello(int rank, const Hello& hello) override;
  void on_sample(int rank, const Sample& sample) override;
  void on_event(int rank, const Event& event) override;
  void on_shapes(int rank, const Shapes& shapes) override;
  void on_disconnected(int rank, std::int64_t t, const std::string& reason) override;
  void on_connected(int rank, std::int64_t t) override;
  void on_bad_line(int rank, std::int64_t t, const std::string& error) override;

  void close();
  const std::string& path() const { return path_; }
  std::uint64_t bytes_written() const;  // compressed bytes on disk so far (after the last flush)

 private:
  void text_record(rec::Kind kind, int rank, std::int64_t t, const std::string& text);
  void line_record(int rank, std::string line);
  void append(const std::string& record);

  std::string path_;
  int flush_ms_;
  mutable std::mutex mutex_;
  gzFile file_ = nullptr;
  bool dirty_ = false;
  std::string scratch_;
  std::vector<rec::DeltaState> state_;
  std::jthread flusher_;
};

}  // namespace oomscope::live
