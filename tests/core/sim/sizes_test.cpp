// Scene sizes: the generated distributions and files of real sizes.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/sim/scene.h"
#include "core/sim/simulator.h"
#include "core/sim/sizes_file.h"
#include "core/util/error.h"

namespace oomscope::sim {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_scene_sizes(text, "sizes.csv");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Sizes, OneIntegerPerLine) {
  EXPECT_EQ(parse_scene_sizes("120000\n45000\r\n\n# a comment\n300000", "s.txt"),
            (std::vector<std::int64_t>{120000, 45000, 300000}));
}

TEST(Sizes, CsvWithASizeColumn) {
  EXPECT_EQ(parse_scene_sizes("scene,size,room\nscene0000_00,81234,office\nscene0001_00,\"230117\",lounge\n",
                              "s.csv"),
            (std::vector<std::int64_t>{81234, 230117}));
  EXPECT_EQ(parse_scene_sizes("\xEF\xBB\xBFname,Points\na,5\nb,7\n", "s.csv"),
            (std::vector<std::int64_t>{5, 7}));
}

TEST(Sizes, ErrorsNameFileAndLine) {
  EXPECT_EQ(error_of("100\n200\nabc\n"),
            "sizes.csv: line 3: 'abc' is not a point count (expected a positive integer)");
  EXPECT_EQ(error_of("100\n\n0\n"), "sizes.csv: line 3: point count must be positive, got 0");
  EXPECT_EQ(error_of("100\n-5\n"), "sizes.csv: line 2: point count must be positive, got -5");
  EXPECT_EQ(error_of("100\n12.5\n"), "sizes.csv: line 2: point count '12.5' is not a whole number");
  EXPECT_EQ(error_of("100\n99999999999999999999\n"),
            "sizes.csv: line 2: point count '99999999999999999999' is larger than 100,000,000 (the most one "
            "scene may have)");
  EXPECT_EQ(error_of("scene,room\na,b\n"),
            "sizes.csv: line 1: no 'size' column in the CSV header (columns: scene, room)");
  EXPECT_EQ(error_of("scene,size\na,10\nb\n"), "sizes.csv: line 3: has 1 fields, the header has 2");
  EXPECT_EQ(error_of("scene,size\na,ten\n"),
            "sizes.csv: line 2: 'ten' is not a point count (expected a positive integer)");
  EXPECT_EQ(error_of("100\n200,300\n"), "sizes.csv: line 2: expected one point count per line");
  EXPECT_EQ(error_of("# only a comment\n\n"), "sizes.csv: no scene sizes in the file");
}

TEST(Sizes, FileErrors) {
  try {
    read_scene_sizes("/nonexistent/sizes.txt");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_EQ(e.file(), "/nonexistent/sizes.txt");
  }
  const auto dir = std::filesystem::temp_directory_path();
  const std::string empty = (dir / "oomscope_sizes_empty.txt").string();
  std::ofstream(empty).close();
  try {
    read_scene_sizes(empty);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Empty);
  }
  const std::string good = (dir / "oomscope_sizes_good.txt").string();
  std::ofstream(good) << "20000\n300000\n";
  EXPECT_EQ(read_scene_sizes(good), (std::vector<std::int64_t>{20000, 300000}));
  std::filesystem::remove(empty);
  std::filesystem::remove(good);
}

TEST(Sizes, SimulatorReadsTheSizesFile) {
  SimConfig c;
  c.scenes.dist = SizeDist::File;
  c.scenes.sizes_file = std::string(OOMSCOPE_TEST_DATA) + "/sim/scene_sizes.csv";
  c.scenes.count = 0;  // all of them
  Simulator all(c);
  ASSERT_EQ(all.scene_sizes().size(), 24u);
  EXPECT_EQ(all.scene_sizes()[0], 20688);
  c.scenes.count = 10;
  EXPECT_EQ(Simulator(c).scene_sizes().size(), 10u);
  c.scenes.count = 25;
  try {
    Simulator too_many(c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "holds 24 scene sizes, 25 scenes were asked for");
  }
  c.scenes.count = 0;
  c.scenes.sizes_file = std::string(OOMSCOPE_TEST_DATA) + "/sim/bad_sizes.txt";
  try {
    Simulator bad(c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), c.scenes.sizes_file);
    EXPECT_EQ(e.message(), "line 4: expected one point count per line");
  }
}

TEST(Sizes, UniformStaysInTheReferenceRange) {
  const auto s = generate_scene_sizes(SizeDist::Uniform, 5000, 9);
  ASSERT_EQ(s.size(), 5000u);
  EXPECT_GE(*std::min_element(s.begin(), s.end()), kUniformMinPoints);
  EXPECT_LE(*std::max_element(s.begin(), s.end()), kUniformMaxPoints);
  EXPECT_LT(*std::min_element(s.begin(), s.end()), 25'000);
  EXPECT_GT(*std::max_element(s.begin(), s.end()), 295'000);
}

TEST(Sizes, HeavyTailedIsMostlySmallWithHugeOutliers) {
  auto s = generate_scene_sizes(SizeDist::HeavyTailed, 5000, 9);
  std::sort(s.begin(), s.end());
  EXPECT_GE(s.front(), kUniformMinPoints);
  EXPECT_LT(s[s.size() / 2], 50'000) << "median";
  EXPECT_GT(s.back(), 1'000'000) << "largest";
  const auto above = std::count_if(s.begin(), s.end(), [](auto v) { return v > kUniformMaxPoints; });
  EXPECT_GT(above, 50);
  EXPECT_LT(above, 400);
}

TEST(Scene, PointsFillTheRoomExactly) {
  for (std::int64_t scene : {0, 1, 17}) {
    std::vector<Point> pts(30'000);
    generate_scene_points(scene, 5, pts);
    EXPECT_EQ(bounds_of(pts), scene_room(scene, 5)) << "scene " << scene;
  }
}

TEST(Scene, LayoutIsClustered) {
  // Dense clusters: the densest 1 % of a 32x32 grid over the floor plan holds far more than 1 % of points.
  std::vector<Point> pts(100'000);
  generate_scene_points(4, 1, pts);
  const Bbox room = scene_room(4, 1);
  std::vector<int> cells(32 * 32, 0);
  for (const Point& p : pts) {
    const int cx = std::min(31, int(p.x / room.hi[0] * 32)), cy = std::min(31, int(p.y / room.hi[1] * 32));
    cells[std::size_t(cy) * 32 + std::size_t(cx)]++;
  }
  std::sort(cells.rbegin(), cells.rend());
  int top = 0;
  for (int i = 0; i < 10; ++i) top += cells[std::size_t(i)];
  EXPECT_GT(top, 20'000) << "10 of 1,024 cells hold more than 20 % of the points";
}

}  // namespace
}  // namespace oomscope::sim
