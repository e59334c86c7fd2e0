#include "core/util/files_under.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace oomscope {
namespace {

namespace fs = std::filesystem;

TEST(FilesUnder, FindsTheSuffixesAtAnyDepthSortedByPath) {
  const fs::path root = fs::temp_directory_path() / "oomscope_files_under";
  fs::remove_all(root);
  fs::create_directories(root / "b" / "deep");
  fs::create_directories(root / "a.xplane.pb");  // a folder named like a capture is not one
  for (const char* name : {"b/deep/h1.xplane.pb.gz", "b/h0.xplane.pb", "c.xplane.pb", "notes.txt", "x.pb"})
    std::ofstream(root / name) << "x";
  const std::vector<std::string> found = files_under(root.string(), {".xplane.pb", ".xplane.pb.gz"});
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], (root / "b/deep/h1.xplane.pb.gz").string());
  EXPECT_EQ(found[1], (root / "b/h0.xplane.pb").string());
  EXPECT_EQ(found[2], (root / "c.xplane.pb").string());
  EXPECT_TRUE(files_under(root.string(), {".pickle"}).empty());
  EXPECT_TRUE(files_under((root / "no-such").string(), {".xplane.pb"}).empty());
  fs::remove_all(root);
}

}  // namespace
}  // namespace oomscope
