// A capture cut short (core/capture/cut_short.h): real captures from tests/data cut at test time. A cut in
// the host plane, after the plan and the device planes, is read with the cut said; a cut in the plan or a
// device plane, or before any of them, stays a Truncated error.

#include <gtest/gtest.h>

#include <string>

#include "core/capture/reader.h"
#include "core/util/error.h"
#include "tests/core/scratch_dir_test.h"

namespace {

using oomscope::ErrorKind;
using oomscope::capture::Capture;
using oomscope::capture::read_capture;

const std::string kData = OOMSCOPE_TEST_DATA;
const std::string kGemm = kData + "/jax0.8_rocm_mi300x_gemm.xplane.pb";
const std::string kTpu = kData + "/jax_tpu_v6e_inference.xplane.pb";

class CutShort : public oomscope::testing::ScratchDirTest {
 protected:
  std::string cut(const std::string& source, double fraction) {
    const std::string whole = slurp(source);
    return write("cut.xplane.pb", whole.substr(0, static_cast<std::size_t>(fraction * whole.size())));
  }
  static oomscope::Error error_of(const std::string& path) {
    try {
      read_capture(path);
    } catch (const oomscope::Error& e) {
      return e;
    }
    ADD_FAILURE() << path << " was read without an error";
    return oomscope::Error(ErrorKind::Cancelled, path, "");
  }
};

TEST_F(CutShort, NinetyNinePercentOfARealCaptureKeepsThePlanAndTheDevicePlanes) {
  const auto whole = read_capture(kGemm);
  const std::string path = cut(kGemm, 0.99);
  const auto c = read_capture(path);
  ASSERT_TRUE(c->cut_short());
  const auto& s = *c->cut_short();
  EXPECT_EQ(s.field_number, 1u);
  EXPECT_EQ(s.plane, "/host:CPU");
  EXPECT_EQ(s.data_bytes, c->file_size());
  ASSERT_TRUE(s.declared_bytes);
  EXPECT_LT(s.present_bytes, *s.declared_bytes);
  // Every module, with its HloProto, and every device plane of the whole file; nothing of /host:CPU.
  ASSERT_EQ(c->modules().size(), whole->modules().size());
  for (std::size_t i = 0; i < c->modules().size(); ++i) {
    EXPECT_EQ(c->modules()[i].program_id, whole->modules()[i].program_id);
    EXPECT_EQ(c->modules()[i].hlo != nullptr, whole->modules()[i].hlo != nullptr);
  }
  std::size_t devices = 0, whole_devices = 0;
  for (const auto& p : c->planes()) devices += p.name.starts_with("/device:");
  for (const auto& p : whole->planes()) whole_devices += p.name.starts_with("/device:");
  EXPECT_EQ(devices, whole_devices);
  EXPECT_EQ(s.planes_read.size(), c->planes().size());
  EXPECT_EQ(c->find_plane("/host:CPU"), nullptr);
  EXPECT_TRUE(c->executions().empty());
  EXPECT_TRUE(c->memory_events().empty());
  EXPECT_EQ(c->device_program_events().size(), whole->device_program_events().size());
  // The note says where the file ends and what was left out.
  ASSERT_FALSE(c->reader_notes().empty());
  const std::string& note = c->reader_notes().front();
  EXPECT_NE(note.find("the file is cut short"), std::string::npos) << note;
  EXPECT_NE(note.find("\"/host:CPU\""), std::string::npos) << note;
  EXPECT_NE(note.find("/host:metadata"), std::string::npos) << note;
}

TEST_F(CutShort, TheLastByteMissingCutsOnlyTheHostname) {
  const std::string whole = slurp(kGemm);
  const auto c = read_capture(write("cut.xplane.pb", whole.substr(0, whole.size() - 1)));
  ASSERT_TRUE(c->cut_short());
  EXPECT_EQ(c->cut_short()->field_number, 4u);
  EXPECT_TRUE(c->hostnames().empty());
  EXPECT_NE(c->find_plane("/host:CPU"), nullptr);
  EXPECT_FALSE(c->executions().empty());
}

TEST_F(CutShort, TheTpuCaptureCutInItsHostPlaneKeepsItsPlan) {
  const auto c = read_capture(cut(kTpu, 0.99));
  ASSERT_TRUE(c->cut_short());
  EXPECT_EQ(c->cut_short()->plane, "/host:CPU");
  EXPECT_EQ(c->modules().size(), 4u);
}

TEST_F(CutShort, ACutInsideThePlanIsStillAnError) {
  const oomscope::Error e = error_of(cut(kGemm, 0.10));  // /host:metadata spans 0 .. 19.7 %
  EXPECT_EQ(e.kind(), ErrorKind::Truncated);
  EXPECT_NE(e.message().find("truncated"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("nothing before the cut holds the plan"), std::string::npos) << e.message();
}

TEST_F(CutShort, ACutInsideADevicePlaneIsStillAnError) {
  // The TPU capture's device planes come first: 20 % is inside /device:TPU:1, after /device:TPU:0.
  const oomscope::Error e = error_of(cut(kTpu, 0.20));
  EXPECT_EQ(e.kind(), ErrorKind::Truncated);
  EXPECT_NE(e.message().find("inside the plane \"/device:TPU:1\", which is needed whole"), std::string::npos)
      << e.message();
  // The same capture cut inside /host:metadata, after every device plane.
  const oomscope::Error m = error_of(cut(kTpu, 0.40));
  EXPECT_NE(m.message().find("inside the plane \"/host:metadata\""), std::string::npos) << m.message();
}

TEST_F(CutShort, ACutInThePlanesTagIsStillAnErrorBeforeAnyPlane) {
  EXPECT_EQ(error_of(write("cut.xplane.pb", slurp(kGemm).substr(0, 3))).kind(), ErrorKind::Truncated);
}

}  // namespace
