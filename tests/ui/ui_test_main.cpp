// oomscope-ui-tests NAME [QTest options]: runs the Qt test of tests/ui/NAME.cpp (ui_test_registry.h);
// without NAME, or with --list, it lists the tests it holds.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tests/ui/ui_test_registry.h"

namespace oomscope::test {

namespace {

std::map<std::string, UiTestRun>& registry() {
  static std::map<std::string, UiTestRun> tests;
  return tests;
}

std::string stem(const char* file) {
  std::string s(file);
  if (const auto slash = s.find_last_of("/\\"); slash != std::string::npos) s.erase(0, slash + 1);
  if (const auto dot = s.rfind('.'); dot != std::string::npos) s.erase(dot);
  return s;
}

}  // namespace

bool register_ui_test(const char* file, UiTestRun run) {
  if (!registry().emplace(stem(file), run).second) {
    std::fprintf(stderr, "oomscope-ui-tests: two tests are named %s\n", stem(file).c_str());
    std::abort();
  }
  return true;
}

}  // namespace oomscope::test

int main(int argc, char** argv) {
  const auto& tests = oomscope::test::registry();
  if (argc < 2 || std::strcmp(argv[1], "--list") == 0) {
    std::printf("usage: oomscope-ui-tests NAME [QTest options]; NAME is one of:\n");
    for (const auto& [name, run] : tests) std::printf("  %s\n", name.c_str());
    return argc < 2 ? 2 : 0;
  }
  const auto it = tests.find(argv[1]);
  if (it == tests.end()) {
    std::fprintf(stderr, "oomscope-ui-tests: no test named %s (--list lists them)\n", argv[1]);
    return 2;
  }
  // QTest reads argv[0] as the program and the rest as its options: the test's name takes the program's
  // place.
  std::vector<char*> args(argv + 1, argv + argc);
  args.push_back(nullptr);
  return it->second(argc - 1, args.data());
}
