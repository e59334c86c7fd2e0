// Every real capture in tests/data against figures computed independently (expected_figures.inc).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/capture/reader.h"

namespace {

using oomscope::capture::read_capture;

struct M {
  std::string name;
  std::uint64_t program_id;
  std::int64_t parameters, donated, outputs, temp, constants, total;
  int allocations;
};
struct A {
  std::string name;
  std::int64_t allocations, deallocations, max_in_use, peak, capacity, largest;
};
struct Expected {
  std::string file;
  std::size_t retries;
  std::size_t events;
  std::vector<M> modules;
  std::vector<A> allocators;
};

const std::vector<Expected>& expected() {
  static const std::vector<Expected> rows = {
#include "expected_figures.inc"
  };
  return rows;
}

class CaptureFigures : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CaptureFigures, MatchTheIndependentReading) {
  const Expected& want = expected()[GetParam()];
  SCOPED_TRACE(want.file);
  auto cap = read_capture(std::string(OOMSCOPE_TEST_DATA) + "/" + want.file);
  EXPECT_EQ(cap->event_count(), want.events);
  EXPECT_EQ(cap->allocator_retries().size(), want.retries);

  ASSERT_EQ(cap->modules().size(), want.modules.size());
  for (std::size_t i = 0; i < want.modules.size(); ++i) {
    const auto& got = cap->modules()[i];
    const M& m = want.modules[i];
    SCOPED_TRACE(m.name);
    EXPECT_EQ(got.name, m.name);
    EXPECT_EQ(got.program_id, m.program_id);
    EXPECT_EQ(got.totals.parameters_bytes, m.parameters);
    EXPECT_EQ(got.totals.donated_bytes, m.donated);
    EXPECT_EQ(got.totals.outputs_bytes, m.outputs);
    EXPECT_EQ(got.totals.temp_bytes, m.temp);
    EXPECT_EQ(got.totals.constants_bytes, m.constants);
    EXPECT_EQ(got.totals.total_allocation_bytes, m.total);
    EXPECT_EQ(got.totals.allocation_count, m.allocations);
    EXPECT_TRUE(got.has_buffer_assignment);
    ASSERT_TRUE(got.hlo);
  }
  EXPECT_TRUE(cap->module_problems().empty());

  ASSERT_EQ(cap->allocators().size(), want.allocators.size());
  for (const A& a : want.allocators) {
    SCOPED_TRACE(a.name);
    const oomscope::capture::AllocatorSummary* got = nullptr;
    for (const auto& s : cap->allocators())
      if (s.name == a.name) got = &s;
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->allocations, a.allocations);
    EXPECT_EQ(got->deallocations, a.deallocations);
    EXPECT_EQ(got->max_bytes_in_use, a.max_in_use);
    EXPECT_EQ(got->peak_bytes_in_use, a.peak);
    EXPECT_EQ(got->capacity_bytes, a.capacity);
    EXPECT_EQ(got->largest_allocation, a.largest);
  }
  std::size_t memory_events = 0;
  for (const A& a : want.allocators)
    memory_events += static_cast<std::size_t>(a.allocations + a.deallocations);
  EXPECT_EQ(cap->memory_events().size(), memory_events);
}

INSTANTIATE_TEST_SUITE_P(AllCaptures, CaptureFigures, ::testing::Range<std::size_t>(0, expected().size()),
                         [](const auto& info) {
                           std::string n = expected()[info.param].file;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// The allocation/deallocation counts of the capture descriptions (tests/data/README.md), a human reading.
TEST(CaptureFigures, AllocatorEventCountsMatchSourcesMd) {
  const std::vector<std::tuple<std::string, int, int>> counts = {
      {"tf2_gpu_v100x8_bert_multiworker.xplane.pb", 1859, 634},
      {"jax0.8_rocm_mi300x_gemm.xplane.pb", 81, 81},
      {"jax0.8_rocm_mi300x_elementwise.xplane.pb", 85, 85},
      {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", 115, 115},
      {"jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb", 230, 230},
      {"jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", 30, 29},
      {"jax_tpu_v6e_inference.xplane.pb", 453, 453},
  };
  for (const auto& [file, allocs, deallocs] : counts) {
    SCOPED_TRACE(file);
    auto cap = read_capture(std::string(OOMSCOPE_TEST_DATA) + "/" + file);
    int a = 0, d = 0;
    for (const auto& e : cap->memory_events())
      (e.kind == oomscope::capture::MemoryEventKind::Allocation ? a : d) += 1;
    EXPECT_EQ(a, allocs);
    EXPECT_EQ(d, deallocs);
  }
}

}  // namespace
