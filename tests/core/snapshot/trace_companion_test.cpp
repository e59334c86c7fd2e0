// A JAX or TensorFlow <host>.trace.json.gz read as a Chrome trace: it has no memory events, and when its
// <host>.xplane.pb lies beside it the error is CompanionNeeded and names that capture (oomscope-cli info and
// the GUI's trace window say what the capture reader says of the same file: tests/core/capture).

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/snapshot/kineto.h"
#include "core/util/error.h"
#include "tests/core/scratch_dir_test.h"

namespace {

using oomscope::Error;
using oomscope::ErrorKind;

class TraceCompanion : public oomscope::testing::ScratchDirTest {
 protected:
  std::string trace_without_memory_events() {
    const std::string path = (dir_ / "host0.trace.json.gz").string();
    const std::string json =
        R"({"displayTimeUnit": "ns", "traceEvents": [{"ph": "X", "name": "a", "ts": 1}]})";
    gzFile gz = gzopen(path.c_str(), "wb");
    gzwrite(gz, json.data(), static_cast<unsigned>(json.size()));
    gzclose(gz);
    return path;
  }
  static Error error_of(const oomscope::snapshot::KinetoTrace& trace) {
    try {
      oomscope::snapshot::require_memory_events(trace);
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "a trace without memory events was accepted";
    return Error(ErrorKind::Internal, "", "");
  }
};

TEST_F(TraceCompanion, NamesTheCaptureBesideIt) {
  const std::string path = trace_without_memory_events();
  oomscope::NullProgress none;
  const auto trace = oomscope::snapshot::read_kineto_trace(path, none);
  const Error alone = error_of(*trace);
  EXPECT_EQ(alone.kind(), ErrorKind::NotACapture);
  EXPECT_TRUE(alone.companion().empty());

  const std::string capture = write("host0.xplane.pb", "any bytes: the name is what is looked for");
  const Error e = error_of(*trace);
  EXPECT_EQ(e.kind(), ErrorKind::CompanionNeeded);
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.companion(), capture);
  EXPECT_NE(e.message().find("host0.xplane.pb in the same folder"), std::string::npos) << e.message();
}

}  // namespace
