// Moves a test program into the source tree before main runs, so the paths the tests name relative to it
// (OOMSCOPE_TEST_DATA is "tests/data"; OOMSCOPE_CLI, OOMSCOPE_SCREENSHOT_DIR and OOMSCOPE_DEMO_TRAINER are
// the build's files seen from the tree) hold wherever the program is started from: by ctest, from the
// tree's root or from the build folder. This file is the only one of a test program that holds the tree's
// absolute path (OOMSCOPE_SOURCE_ROOT, tests/CMakeLists.txt), so a fresh clone compiles the others from
// the compiler cache: ccache's base_dir makes the paths in options relative, not those in defined strings.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace {

const bool kInSourceTree = [] {
  std::error_code ec;
  std::filesystem::current_path(OOMSCOPE_SOURCE_ROOT, ec);
  if (ec) {
    std::fprintf(stderr, "cannot enter the source tree %s, where the tests find their data: %s\n",
                 OOMSCOPE_SOURCE_ROOT, ec.message().c_str());
    std::exit(2);
  }
  return true;
}();

}  // namespace
