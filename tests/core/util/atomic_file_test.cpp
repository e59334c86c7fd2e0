#include "core/util/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "core/util/error.h"

namespace {

namespace fs = std::filesystem;
using oomscope::resolve_all_links;
using oomscope::write_file_atomically;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("oomscope_atomic_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_ / "ro", fs::perms::owner_all, ec);
    fs::remove_all(dir_);
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesANewFileAndSaysWhenItReplacesOne) {
  const fs::path out = dir_ / "report.json";
  EXPECT_FALSE(write_file_atomically(out.string(), "one").replaced);
  EXPECT_EQ(slurp(out), "one");
  EXPECT_TRUE(write_file_atomically(out.string(), "two").replaced);
  EXPECT_EQ(slurp(out), "two");
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename(), "report.json");  // no temp left
}

TEST_F(AtomicFile, AHardLinkToAnotherFileKeepsItsBytes) {
  const fs::path capture = dir_ / "capture.xplane.pb", link = dir_ / "out.json";
  std::ofstream(capture) << "capture bytes";
  fs::create_hard_link(capture, link);
  write_file_atomically(link.string(), "{}");
  EXPECT_EQ(slurp(capture), "capture bytes");
  EXPECT_EQ(slurp(link), "{}");
}

TEST_F(AtomicFile, AFailedWriteLeavesTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write into a read-only folder";
  fs::create_directories(dir_ / "ro");
  const fs::path out = dir_ / "ro" / "report.json";
  std::ofstream(out) << "old";
  fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  try {
    write_file_atomically(out.string(), "new");
    FAIL();
  } catch (const oomscope::Error& e) {
    EXPECT_NE(e.message().find("Permission denied"), std::string::npos) << e.message();
  }
  EXPECT_EQ(slurp(out), "old");
}

TEST_F(AtomicFile, AMissingFolderIsAClearError) {
  try {
    write_file_atomically((dir_ / "nope" / "r.json").string(), "x");
    FAIL();
  } catch (const oomscope::Error& e) {
    EXPECT_EQ(e.file(), (dir_ / "nope" / "r.json").string());
    EXPECT_NE(e.message().find("No such file or directory"), std::string::npos) << e.message();
  }
}

TEST_F(AtomicFile, EveryLinkIsFollowedDanglingOnesToo) {
  fs::create_directories(dir_ / "captures");
  fs::create_directory_symlink(dir_ / "captures", dir_ / "via");
  fs::create_symlink(dir_ / "via" / "not-yet.json", dir_ / "dangling.json");
  EXPECT_EQ(resolve_all_links(dir_ / "dangling.json"), dir_ / "captures" / "not-yet.json");
  fs::create_symlink("via/../captures/x.json", dir_ / "relative.json");
  EXPECT_EQ(resolve_all_links(dir_ / "relative.json"), dir_ / "captures" / "x.json");
  fs::create_symlink(dir_ / "loop", dir_ / "loop");
  EXPECT_THROW(resolve_all_links(dir_ / "loop"), oomscope::Error);
  // Writing through the dangling link creates the file it names.
  write_file_atomically((dir_ / "dangling.json").string(), "z");
  EXPECT_EQ(slurp(dir_ / "captures" / "not-yet.json"), "z");
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.json"));
}

}  // namespace
