// Bad input: each error kind, made as tiny files in a temporary directory at test time.

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/capture/reader.h"
#include "core/util/error.h"
#include "tests/core/scratch_dir_test.h"

namespace {

namespace fs = std::filesystem;
using oomscope::ErrorKind;
using oomscope::capture::read_capture;

class ReaderErrors : public oomscope::testing::ScratchDirTest {
 protected:
  // The kind of the error read_capture throws; the message must name the file.
  static ErrorKind kind_of(const std::string& path) {
    try {
      read_capture(path);
    } catch (const oomscope::Error& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
      EXPECT_FALSE(e.message().empty());
      return e.kind();
    }
    ADD_FAILURE() << path << " was read without an error";
    return ErrorKind::Cancelled;
  }
};

const std::string kData = OOMSCOPE_TEST_DATA;

TEST_F(ReaderErrors, MissingFile) {
  EXPECT_EQ(kind_of((dir_ / "nope.xplane.pb").string()), ErrorKind::NotFound);
}

TEST_F(ReaderErrors, Directory) { EXPECT_EQ(kind_of(dir_.string()), ErrorKind::NotAFile); }

TEST_F(ReaderErrors, EmptyFile) { EXPECT_EQ(kind_of(write("empty.xplane.pb", "")), ErrorKind::Empty); }

TEST_F(ReaderErrors, GzipSaysWhatToOpenInstead) {
  // A .trace.json.gz: gzip, but not of an XSpace (a .xplane.pb.gz is read: reader_hostile_test.cpp).
  const std::string path = (dir_ / "host.trace.json.gz").string();
  gzFile gz = gzopen(path.c_str(), "wb");
  const std::string json = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": []}";
  gzwrite(gz, json.data(), static_cast<unsigned>(json.size()));
  gzclose(gz);
  EXPECT_EQ(kind_of(path), ErrorKind::Gzip);
  // Broken gzip data is a clear error too.
  EXPECT_EQ(kind_of(write("cut.xplane.pb.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8) + "xx")),
            ErrorKind::Truncated);
  try {
    read_capture(path);
  } catch (const oomscope::Error& e) {
    EXPECT_NE(e.message().find(".xplane.pb"), std::string::npos);
  }
}

TEST_F(ReaderErrors, RiegeliByMagicAndByName) {
  const std::string magic("\x83\xaf\x70\xd1\x0d\x88\x4a\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x40", 17);
  EXPECT_EQ(kind_of(write("capture.bin", magic)), ErrorKind::Riegeli);
  EXPECT_EQ(kind_of(write("host.xplane.riegeli", "\x0a\x02\x12")), ErrorKind::Riegeli);
}

TEST_F(ReaderErrors, OverTwoGiB) {
  const std::string path = (dir_ / "huge.xplane.pb").string();
  { std::ofstream(path) << "x"; }
  fs::resize_file(path, (2ull << 30) + 1);  // sparse: takes no disk space
  EXPECT_EQ(kind_of(path), ErrorKind::TooLarge);
}

TEST_F(ReaderErrors, TruncatedCopyOfARealCapture) {
  const std::string whole = slurp(kData + "/jax0.8_rocm_mi300x_gemm.xplane.pb");
  // Cut inside /host:metadata (0 .. 19.7 % of this file) or inside the first tag: nothing usable is whole.
  // A cut after the plan and the device planes is read with the cut said (cut_short_test.cpp).
  for (std::size_t cut : {whole.size() / 10, whole.size() / 20, std::size_t{3}}) {
    SCOPED_TRACE(cut);
    EXPECT_EQ(kind_of(write("cut.xplane.pb", whole.substr(0, cut))), ErrorKind::Truncated);
  }
}

TEST_F(ReaderErrors, TheRealUtf8MangledCaptureIsDamaged) {
  EXPECT_EQ(kind_of(kData + "/CORRUPT_utf8_mangled_jax_tpu_v6e_inference.xplane.pb"), ErrorKind::Damaged);
}

TEST_F(ReaderErrors, RandomGarbageNeverCrashesOrLoads) {
  std::mt19937 rng(1234);
  for (int i = 0; i < 200; ++i) {
    std::string bytes(1 + rng() % 4096, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (static_cast<unsigned char>(bytes[0]) == 0x1f || static_cast<unsigned char>(bytes[0]) == 0x83)
      bytes[0] = 0x0a;
    const ErrorKind k = kind_of(write("garbage.xplane.pb", bytes));
    EXPECT_TRUE(k == ErrorKind::Damaged || k == ErrorKind::Truncated || k == ErrorKind::NotACapture)
        << to_string(k);
  }
}

TEST_F(ReaderErrors, BadWireTypeIsNotAnXSpaceAtTheStartAndDamagedLater) {
  // Nothing at the start reads as an XSpace field: not a capture (no offset to give but 0).
  EXPECT_EQ(kind_of(write("wt7.xplane.pb", "\x0f\x01")), ErrorKind::NotACapture);  // field 1, wire type 7
  EXPECT_EQ(kind_of(write("group.xplane.pb", std::string("\x0b\x00", 2))),
            ErrorKind::NotACapture);  // wire type 3
  // A valid plane, then the same bad field: damaged, at byte 4.
  EXPECT_EQ(kind_of(write("late.xplane.pb", std::string("\x0a\x02\x12\x00\x0f\x01", 6))), ErrorKind::Damaged);
}

TEST_F(ReaderErrors, NestedLengthPastItsParentIsDamaged) {
  // A plane of 4 bytes holding a line that claims 100.
  EXPECT_EQ(kind_of(write("nested.xplane.pb", std::string("\x0a\x04\x1a\x64\x08\x01", 6))),
            ErrorKind::Damaged);
}

TEST_F(ReaderErrors, ValidProtobufThatIsNotAnXSpace) {
  // No planes at all: only an unknown field 9.
  EXPECT_EQ(kind_of(write("other.pb", std::string("\x48\x01", 2))), ErrorKind::NotACapture);
  // The bare HloProto sidecar is valid protobuf, but its module is no plane.
  EXPECT_EQ(kind_of(kData + "/jax_legacy_rocm_mi300x_jit_forward_3d_conv.hlo_proto.pb"),
            ErrorKind::NotACapture);
}

TEST_F(ReaderErrors, FromMemoryNamesTheGivenName) {
  oomscope::NullProgress none;
  try {
    oomscope::capture::read_capture_from_memory(std::string("\x0a\x05", 2), "<pipe>", none);
    FAIL();
  } catch (const oomscope::Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Truncated);
    EXPECT_EQ(e.file(), "<pipe>");
  }
}

}  // namespace
