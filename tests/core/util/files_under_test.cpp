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

TEST(FilesUnder, WithoutRepeatsKeepsTheFirstNameOfEachFile) {
  const fs::path root = fs::temp_directory_path() / "oomscope_without_repeats";
  fs::remove_all(root);
  fs::create_directories(root / "sub");
  std::ofstream(root / "a.pb") << "x";
  std::ofstream(root / "b.pb") << "y";
  const std::string a = (root / "a.pb").string();
  const std::string a_again = (root / "sub" / ".." / "a.pb").string();  // another path to the same file
  const std::string b = (root / "b.pb").string();
  const std::string missing = (root / "missing.pb").string();
  const std::vector<std::string> files = {a, b, a_again, a, missing, missing};
  // A name that does not exist repeats nothing: each is left for its reader to refuse.
  EXPECT_EQ(first_names(files), (std::vector<std::size_t>{0, 1, 0, 0, 4, 5}));
  EXPECT_EQ(without_repeats(files), (std::vector<std::string>{a, b, missing, missing}));
  fs::remove_all(root);
}

}  // namespace
}  // namespace oomscope
