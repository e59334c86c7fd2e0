#pragma once
// A GoogleTest fixture with a scratch folder of its own (under the system's temporary folder, named by
// the suite and the process), made before each test and removed after it, and a helper that writes a
// small file into it and one that reads a file whole. For tests that make their inputs at test time.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace oomscope::testing {

class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
    dir_ = std::filesystem::temp_directory_path() /
           ("oomscope_" + std::string(suite ? suite->name() : "test") + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `bytes` to dir_/name and returns the path.
  std::string write(const std::string& name, const std::string& bytes) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }

  // The bytes of a file (a test input to copy, grow or damage).
  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::filesystem::path dir_;
};

}  // namespace oomscope::testing
