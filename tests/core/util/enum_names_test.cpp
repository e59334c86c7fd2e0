#include "core/util/enum_names.h"

#include <gtest/gtest.h>

#include "core/analysis/report/report.h"

namespace oomscope {
namespace {

enum class Colour { Red, Green, Blue };
constexpr EnumName<Colour> kColours[] = {
    {Colour::Red, "red"}, {Colour::Green, "green"}, {Colour::Blue, "blue"}, {Colour::Green, "verde"}};
constexpr EnumName<Colour> kMissingBlue[] = {{Colour::Red, "red"}, {Colour::Green, "green"}};

static_assert(names_every_value(kColours, Colour::Blue));
static_assert(!names_every_value(kMissingBlue, Colour::Blue));
static_assert(parse_enum(kColours, "verde") == Colour::Green);

TEST(EnumNames, NameIsTheFirstEntryAliasesOnlyParse) {
  EXPECT_STREQ(enum_name(kColours, Colour::Green), "green");
  EXPECT_EQ(parse_enum(kColours, "green"), Colour::Green);
  EXPECT_EQ(parse_enum(kColours, "verde"), Colour::Green);
  EXPECT_EQ(parse_enum(kColours, "Green"), std::nullopt);  // exact spelling only
  EXPECT_EQ(parse_enum(kColours, ""), std::nullopt);
  EXPECT_STREQ(enum_name(kMissingBlue, Colour::Blue, "?"), "?");
  EXPECT_EQ(enum_choices(kColours), "red, green or blue");
}

TEST(EnumNames, CapacitySourceNamesAreWhatTheJsonSays) {
  EXPECT_STREQ(enum_name(analysis::kCapacitySourceNames, analysis::CapacitySource::Given), "--capacity");
  EXPECT_STREQ(enum_name(analysis::kCapacitySourceNames, analysis::CapacitySource::None), "");
  analysis::HostReport r;
  r.capacity_source = analysis::CapacitySource::Allocator;
  r.capacity_allocator = "GPU_0_bfc";
  EXPECT_EQ(analysis::capacity_source_text(r), "GPU_0_bfc");
  r.capacity_source = analysis::CapacitySource::Given;
  EXPECT_EQ(analysis::capacity_source_text(r), "--capacity");
}

}  // namespace
}  // namespace oomscope
