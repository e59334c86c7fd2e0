// The kind, file, byte offset and companion of the errors the readers throw (core/util/error.h), one test
// per kind a user can meet opening a file: missing, a directory, no permission, cut short, damaged at a
// byte, shrank while it was read (made deterministic by cutting the file at the reader's first progress
// report), and a companion file (.trace.json.gz, .hlo_proto.pb sidecar) with its capture beside it.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "core/capture/companion.h"
#include "core/capture/reader.h"
#include "core/util/error.h"
#include "tests/core/capture/truncate_on_progress.h"
#include "tests/core/scratch_dir_test.h"

namespace {

namespace fs = std::filesystem;
using oomscope::Error;
using oomscope::ErrorKind;
using oomscope::capture::read_capture;

const std::string kData = OOMSCOPE_TEST_DATA;
const std::string kGemm = kData + "/jax0.8_rocm_mi300x_gemm.xplane.pb";

void write_gzip(const std::string& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

class ErrorKinds : public oomscope::testing::ScratchDirTest {
 protected:
  static Error error_of(const std::string& path, oomscope::ProgressSink* progress = nullptr) {
    oomscope::NullProgress none;
    try {
      read_capture(path, progress ? *progress : none);
    } catch (const Error& e) {
      EXPECT_EQ(e.file(), path);
      return e;
    }
    ADD_FAILURE() << path << " was read without an error";
    return Error(ErrorKind::Internal, "", "");
  }
};

TEST(ErrorKindNames, EveryKindHasItsOwnName) {
  std::set<std::string> names;
  for (int k = 0; k <= static_cast<int>(ErrorKind::Internal); ++k)
    names.insert(oomscope::to_string(static_cast<ErrorKind>(k)));
  EXPECT_EQ(names.size(), static_cast<std::size_t>(ErrorKind::Internal) + 1);
  EXPECT_STREQ(oomscope::to_string(ErrorKind::CompanionNeeded), "companion-needed");
  EXPECT_EQ(oomscope::kind_of_errno(ENOENT), ErrorKind::NotFound);
  EXPECT_EQ(oomscope::kind_of_errno(EACCES), ErrorKind::PermissionDenied);
  EXPECT_EQ(oomscope::kind_of_errno(EISDIR), ErrorKind::NotAFile);
  EXPECT_EQ(oomscope::kind_of_errno(EIO), ErrorKind::Io);
}

TEST_F(ErrorKinds, MissingFileAndDirectory) {
  const Error missing = error_of((dir_ / "gone.xplane.pb").string());
  EXPECT_EQ(missing.kind(), ErrorKind::NotFound);
  EXPECT_EQ(std::string(missing.what()), (dir_ / "gone.xplane.pb").string() + ": no such file");
  EXPECT_FALSE(missing.offset());
  const Error folder = error_of(dir_.string());
  EXPECT_EQ(folder.kind(), ErrorKind::NotAFile);
  EXPECT_NE(folder.message().find("is a directory"), std::string::npos) << folder.message();
}

TEST_F(ErrorKinds, PermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: a file without read permission is still readable";
  const std::string path = write("locked.xplane.pb", slurp(kGemm));
  ::chmod(path.c_str(), 0);
  const Error e = error_of(path);
  EXPECT_EQ(e.kind(), ErrorKind::PermissionDenied);
  EXPECT_NE(e.message().find("Permission denied"), std::string::npos) << e.message();
}

TEST_F(ErrorKinds, TruncatedCarriesWhereTheDataEnds) {
  const std::string whole = slurp(kGemm);
  // Cut inside /host:metadata (a cut after it and the device planes is read: cut_short_test.cpp).
  const std::string path = write("cut.xplane.pb", whole.substr(0, whole.size() / 10));
  const Error e = error_of(path);
  EXPECT_EQ(e.kind(), ErrorKind::Truncated);
  ASSERT_TRUE(e.offset());
  EXPECT_LE(*e.offset(), whole.size() / 10);
  EXPECT_NE(e.message().find("truncated"), std::string::npos) << e.message();
}

TEST_F(ErrorKinds, DamagedCarriesTheOffsetItNames) {
  const Error e = error_of(kData + "/CORRUPT_utf8_mangled_jax_tpu_v6e_inference.xplane.pb");
  EXPECT_EQ(e.kind(), ErrorKind::Damaged);
  ASSERT_TRUE(e.offset());
  EXPECT_EQ(*e.offset(), 1u);
  EXPECT_NE(e.message().find("damaged at byte 1,"), std::string::npos) << e.message();
}

TEST_F(ErrorKinds, FileThatShrinksWhileReadIsChanged) {
  std::string big;
  for (int i = 0; i < 4; ++i) big += slurp(kGemm);
  const std::string path = write("growing.xplane.pb", big);
  oomscope::capture::testing::TruncateOnProgress cut(path, 4096);
  const Error e = error_of(path, &cut);
  EXPECT_EQ(e.kind(), ErrorKind::Changed);
  EXPECT_NE(e.message().find("the file shrank while it was being read"), std::string::npos) << e.message();
}

TEST_F(ErrorKinds, TraceExportBesideItsCaptureNamesTheCapture) {
  const std::string trace = (dir_ / "host0.trace.json.gz").string();
  write_gzip(trace, R"({"displayTimeUnit": "ns", "traceEvents": [{"ph": "X", "name": "a", "ts": 1}]})");
  // Alone, it is gzip of something else (the kind the UI answers with "Choose another file").
  EXPECT_EQ(error_of(trace).kind(), ErrorKind::Gzip);
  EXPECT_FALSE(oomscope::capture::capture_beside(trace));

  const std::string capture = write("host0.xplane.pb", slurp(kGemm));
  write("host1.xplane.pb", "another host");
  const Error e = error_of(trace);
  EXPECT_EQ(e.kind(), ErrorKind::CompanionNeeded);
  EXPECT_EQ(e.companion(), capture);
  EXPECT_EQ(e.message(),
            "is a trace-viewer export (.trace.json.gz), not a capture; the capture it belongs to is "
            "host0.xplane.pb in the same folder: open that instead");
}

TEST_F(ErrorKinds, HloSidecarPointsAtTheOnlyCaptureInItsFolder) {
  const std::string sidecar = write(
      "jit_f(3).hlo_proto.pb", slurp(kData + "/jax_legacy_rocm_mi300x_jit_forward_3d_conv.hlo_proto.pb"));
  EXPECT_NE(error_of(sidecar).kind(), ErrorKind::CompanionNeeded);  // no capture beside it
  const std::string capture = write("h.xplane.pb", slurp(kGemm));
  const Error e = error_of(sidecar);
  EXPECT_EQ(e.kind(), ErrorKind::CompanionNeeded);
  EXPECT_EQ(e.companion(), capture);
  write("h2.xplane.pb.gz", "x");  // two hosts: the name cannot say which one
  EXPECT_NE(error_of(sidecar).kind(), ErrorKind::CompanionNeeded);
}

TEST_F(ErrorKinds, ACaptureNamedLikeACompanionIsStillRead) {
  // The content decides: a real capture under a companion's name is read, not refused by its name.
  write("h.xplane.pb", slurp(kGemm));
  const std::string odd = write("h.trace.json.gz", slurp(kGemm));
  EXPECT_NO_THROW(read_capture(odd));
}

}  // namespace
