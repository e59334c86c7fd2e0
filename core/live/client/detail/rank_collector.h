#pragma once
// Collects each rank's figures (recording_ranks.h) from what a recording replays or a store holds, so the
// recording and a live session are compared by the same code: compare_recording_ranks feeds it the
// replay, compare_store_ranks the store's hellos, samples and events in arrival order.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/live/client/recording_ranks.h"
#include "core/live/protocol/sink.h"

namespace oomscope::live::detail {

class RankCollector final : public LiveSink {
 public:
  void on_endpoint(int, const std::string&) override {}
  void on_hello(int rank, const Hello& h) override;
  void on_sample(int rank, const Sample& s) override;
  void on_event(int rank, const Event& e) override;
  void on_shapes(int, const Shapes&) override {}
  void on_disconnected(int, std::int64_t, const std::string&) override {}
  void on_connected(int, std::int64_t) override {}
  void on_bad_line(int, std::int64_t, const std::string&) override {}

  // The ranks with samples, by rank index.
  std::vector<RecordingRankFigures> take() &&;

 private:
  RecordingRankFigures& at(int rank);
  std::map<int, RecordingRankFigures> ranks_;
  std::map<int, std::int64_t> last_step_;
};

// t0, the verdict and the imbalance of ranks collected above; throws oomscope::Error (Empty) naming
// `subject` when no rank has a sample (`holder`: "the recording", "the session").
RecordingComparison finish_comparison(const std::string& subject, const std::string& holder,
                                      std::vector<RecordingRankFigures> ranks);

}  // namespace oomscope::live::detail
