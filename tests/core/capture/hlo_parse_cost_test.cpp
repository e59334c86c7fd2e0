// The HloProto memory pre-check (core/capture/parse_cost.h): its estimate bounds what the parse keeps, on
// every module of the real captures and on crafted ones; it calls malformed only what protobuf rejects;
// and a capture with one crafted module is read with that module skipped, named in the problems, and the
// other modules intact.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>

#include "core/capture/parse_cost.h"
#include "core/capture/reader.h"
#include "hlo.pb.h"
#include "tests/core/scratch_dir_test.h"

namespace {

using oomscope::capture::estimate_parse_cost;
using oomscope::capture::ParseCost;

const std::string kData = OOMSCOPE_TEST_DATA;

std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string len_field(int number, const std::string& payload) {
  return varint(static_cast<std::uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
}
std::string varint_field(int number, std::uint64_t value) {
  return varint(static_cast<std::uint64_t>(number) << 3) + varint(value);
}
std::string times(const std::string& unit, std::size_t n) {
  std::string out;
  out.reserve(unit.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += unit;
  return out;
}

ParseCost cost_of(const std::string& wire, std::uint64_t limit = ~std::uint64_t{0}) {
  return estimate_parse_cost(*xla::HloProto::descriptor(), wire, limit);
}

std::uint64_t parsed_size(const std::string& wire) {
  xla::HloProto hlo;
  EXPECT_TRUE(hlo.ParseFromString(wire));
  return static_cast<std::uint64_t>(hlo.SpaceUsedLong());
}

// Crafted HloProtos, as tests/hostile/make_hostile.py makes them: n units of an empty repeated message.
std::map<std::string, std::string> crafted(std::size_t n) {
  const std::string name = len_field(1, "jit_crafted");
  const std::string shape_of = len_field(1, "p0");
  return {
      {"instructions", len_field(1, name + len_field(3, len_field(1, "main") + times(len_field(2, ""), n)))},
      {"computations", len_field(1, name + times(len_field(3, ""), n))},
      {"metadata", len_field(1, name + len_field(3, times(len_field(2, len_field(7, "")), n)))},
      {"tuple shapes",
       len_field(1, name + len_field(3, len_field(2, shape_of + len_field(3, times(len_field(4, ""), n)))))},
      {"dimensions",
       len_field(1, name + len_field(3, len_field(2, shape_of +
                                                         len_field(3, len_field(3, std::string(n, '\0'))))))},
      {"unknown fields", len_field(1, name) + times(varint_field(15, 0), n)},
      {"long strings", len_field(1, name + times(len_field(3, len_field(1, std::string(40, 'c'))), n))},
      {"logical buffers", len_field(3, times(len_field(1, ""), n))},
      {"schedule map",
       len_field(
           1, name + len_field(
                         7, times(len_field(1, varint_field(1, 7) + len_field(2, varint_field(1, 0))), n)))},
  };
}

TEST(HloParseCost, BoundsWhatEveryRealModuleKeepsWithoutRefusingIt) {
  int modules = 0;
  for (const char* file :
       {"jax0.8_rocm_mi300x_conv3d_8gpu.xplane.pb", "jax0.8_rocm_mi300x_gemm.xplane.pb",
        "jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb", "jax_legacy_rocm_mi300x_conv3d_8gpu.xplane.pb",
        "jax_tpu_v6e_inference.xplane.pb", "tf2_gpu_v100x8_bert_multiworker.xplane.pb"}) {
    const auto cap = oomscope::capture::read_capture(kData + "/" + file);
    for (const auto& m : cap->modules()) {
      // The parsed message keeps the fields it does not declare, so this is the module's wire form.
      const std::string wire = m.hlo->SerializeAsString();
      const ParseCost c = cost_of(wire);
      const auto kept = parsed_size(wire);
      EXPECT_FALSE(c.malformed || c.over_limit) << file << " " << m.name;
      EXPECT_GE(c.bytes, kept) << file << " " << m.name;
      EXPECT_LE(c.bytes, 3 * kept + 4096) << file << " " << m.name << ": a real module costs about that";
      ++modules;
    }
  }
  EXPECT_GT(modules, 10);
}

TEST(HloParseCost, BoundsCraftedModulesAndStopsAtTheLimit) {
  for (const auto& [kind, wire] : crafted(20000)) {
    const ParseCost c = cost_of(wire);
    const auto kept = parsed_size(wire);
    EXPECT_FALSE(c.malformed || c.over_limit) << kind;
    EXPECT_GE(c.bytes, kept) << kind;
    const ParseCost capped = cost_of(wire, kept / 2);
    EXPECT_TRUE(capped.over_limit && !capped.malformed) << kind;
    if (kind != "dimensions") {  // one packed field is costed at once; elsewhere the walk stops there
      EXPECT_LE(capped.bytes, kept / 2 + 4096) << kind << ": the walk stops where the limit is passed";
    }
  }
}

TEST(HloParseCost, CallsMalformedOnlyWhatProtobufRejects) {
  const auto cap = oomscope::capture::read_capture(kData + "/jax0.8_rocm_mi300x_gemm.xplane.pb");
  ASSERT_FALSE(cap->modules().empty());
  const std::string wire = cap->modules().front().hlo->SerializeAsString();
  std::mt19937 rng(7);
  int malformed = 0, parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = wire;
    const int changes = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < changes; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng() & 0xff);
    if (i % 10 == 0) bytes.resize(rng() % bytes.size());
    const ParseCost c = cost_of(bytes);
    xla::HloProto hlo;
    const bool ok = hlo.ParseFromString(bytes);
    if (c.malformed) {
      EXPECT_FALSE(ok) << "mutation " << i << " parses but was called malformed";
      ++malformed;
    } else if (ok) {
      EXPECT_GE(c.bytes, static_cast<std::uint64_t>(hlo.SpaceUsedLong())) << "mutation " << i;
      ++parsed;
    }
  }
  EXPECT_GT(malformed, 100);
  EXPECT_GT(parsed, 100);
  EXPECT_TRUE(cost_of(wire + std::string(2, '\0')).malformed);  // field number 0
  EXPECT_TRUE(cost_of(wire + "\x1c").malformed);                // an end-group tag outside a group
  EXPECT_TRUE(cost_of(len_field(1, len_field(3, std::string("\x12\x05") + "ab")))
                  .malformed);  // a length past the end
}

class HloModuleBudget : public oomscope::testing::ScratchDirTest {};

TEST_F(HloModuleBudget, ACraftedModuleIsSkippedAndNamedTheOthersAreRead) {
  std::ifstream in(kData + "/jax0.8_rocm_mi300x_gemm.xplane.pb", std::ios::binary);
  const std::string source(std::istreambuf_iterator<char>(in), {});
  // 4 MiB of empty instructions: about 2 M message objects (hundreds of MiB) from a 4 MiB file.
  const std::string hlo = crafted((4u << 20) / 2).at("instructions");
  const std::string stat_md =
      len_field(5, varint_field(1, 1) + len_field(2, varint_field(1, 1) + len_field(2, "Hlo Proto")));
  const std::string stat = len_field(5, varint_field(1, 1) + len_field(6, hlo));
  const std::string md =
      len_field(4, varint_field(1, 424242) +
                       len_field(2, varint_field(1, 424242) + len_field(2, "jit_crafted(424242)") + stat));
  const std::string plane =
      len_field(1, varint_field(1, 424242) + len_field(2, "/host:metadata") + stat_md + md);
  const std::string path = write("crafted_hlo.xplane.pb", source + plane);

  const auto plain = oomscope::capture::read_capture(kData + "/jax0.8_rocm_mi300x_gemm.xplane.pb");
  const auto cap = oomscope::capture::read_capture(path);
  EXPECT_EQ(cap->modules().size(), plain->modules().size());
  for (const auto& m : cap->modules()) EXPECT_NE(m.name, "jit_crafted");
  ASSERT_EQ(cap->module_problems().size(), 1u);
  const std::string& p = cap->module_problems().front();
  EXPECT_EQ(p.rfind("jit_crafted(424242): its HloProto (", 0), 0u) << p;
  EXPECT_NE(p.find("was skipped: parsing it would take more than"), std::string::npos) << p;
  EXPECT_NE(p.find("crafted_hlo.xplane.pb"), std::string::npos) << p;
}

}  // namespace
