// The Python agent's Prometheus families are the C++ table's (core/live/protocol/metric_names.h): the same
// names, types and HELP texts, and the same sample field behind each. The Python side is read from its
// source (app/python-agent/oomscope_agent/metrics.py), so a name changed on one side only fails here.

#include "core/live/protocol/metric_names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace oomscope::live {
namespace {

const std::string kAgentMetricsPy =
    std::string(OOMSCOPE_TEST_DATA) + "/../../app/python-agent/oomscope_agent/metrics.py";

struct PyString {
  std::size_t offset;  // where the literal starts in the file
  std::string value;   // its text, with \\ \" \' \n decoded
};

// Every string literal of a Python source in order (single, double and triple quoted; comments skipped).
std::vector<PyString> python_strings(const std::string& src) {
  std::vector<PyString> out;
  std::size_t i = 0;
  while (i < src.size()) {
    const char c = src[i];
    if (c == '#') {
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (c != '"' && c != '\'') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    const bool triple = src.compare(i, 3, std::string(3, c)) == 0;
    const std::string close = triple ? std::string(3, c) : std::string(1, c);
    i += close.size();
    std::string value;
    while (i < src.size() && src.compare(i, close.size(), close) != 0) {
      if (src[i] == '\\' && i + 1 < src.size()) {
        const char e = src[i + 1];
        value += e == 'n' ? '\n' : e;
        i += 2;
      } else {
        value += src[i++];
      }
    }
    i += close.size();
    out.push_back({start, std::move(value)});
  }
  return out;
}

class PythonAgentMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kAgentMetricsPy);
    ASSERT_TRUE(in) << "cannot read " << kAgentMetricsPy;
    std::stringstream ss;
    ss << in.rdbuf();
    src_ = ss.str();
    strings_ = python_strings(src_);
  }
  std::string src_;
  std::vector<PyString> strings_;
};

TEST_F(PythonAgentMetrics, SampleTableIsTheCppTable) {
  // SAMPLE_METRICS = ( (metric, sample field, type, help), ... ) up to the ")" that closes it at column 0.
  const std::size_t begin = src_.find("\nSAMPLE_METRICS = (");
  ASSERT_NE(begin, std::string::npos) << kAgentMetricsPy << " has no SAMPLE_METRICS table";
  const std::size_t end = src_.find("\n)\n", begin);
  ASSERT_NE(end, std::string::npos);
  std::vector<std::string> py;
  for (const auto& s : strings_)
    if (s.offset > begin && s.offset < end) py.push_back(s.value);
  std::vector<std::string> cpp;
  for (const auto& m : kFieldMetrics)
    for (std::string_view v :
         {m.family.name, std::string_view(field_name(m.field)), m.family.type, m.family.help})
      cpp.emplace_back(v);
  EXPECT_EQ(py, cpp);
}

TEST_F(PythonAgentMetrics, OtherFamiliesHaveTheCppTypeAndHelp) {
  for (const auto& f : kOtherMetrics) {
    const auto it =
        std::find_if(strings_.begin(), strings_.end(), [&](const PyString& s) { return s.value == f.name; });
    ASSERT_NE(it, strings_.end()) << f.name << " is not in " << kAgentMetricsPy;
    ASSERT_GE(std::distance(it, strings_.end()), 3);
    EXPECT_EQ(it[1].value, f.type) << f.name;
    EXPECT_EQ(it[2].value, f.help) << f.name;
  }
}

TEST_F(PythonAgentMetrics, NamesNoOthers) {
  std::set<std::string> py, cpp;
  const std::regex metric_name("oomscope_[a-z_]+");
  for (const auto& s : strings_)
    if (std::regex_match(s.value, metric_name)) py.insert(s.value);
  for (const auto& m : kFieldMetrics) cpp.emplace(m.family.name);
  for (const auto& f : kOtherMetrics) cpp.emplace(f.name);
  EXPECT_EQ(py, cpp);
}

TEST(MetricNames, FieldLookups) {
  EXPECT_EQ(metric_for_field(Field::Driver), "oomscope_driver_bytes");
  EXPECT_EQ(metric_for_field(Field::Micro), "");
  EXPECT_TRUE(metric_is_counter(Field::Ooms));
  EXPECT_TRUE(metric_is_counter(Field::AllocRetries));
  EXPECT_FALSE(metric_is_counter(Field::Step));
  EXPECT_FALSE(metric_is_counter(Field::Micro));
}

}  // namespace
}  // namespace oomscope::live
