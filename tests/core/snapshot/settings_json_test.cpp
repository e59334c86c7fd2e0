// allocator_settings in the JSON documents keep their types: booleans, integers, floats, strings and the
// roundup_power2_divisions dict, not the Python repr text the model stores.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/snapshot/snapshot_json.h"
#include "core/snapshot/snapshot_reader.h"

namespace oomscope::snapshot {
namespace {

TEST(SettingsJson, ValuesAreJsonValuesOfTheirType) {
  const auto snap =
      read_snapshot(std::string(OOMSCOPE_TEST_DATA) + "/torch_snapshot_decomfl_windows_with_trace.pickle");
  const auto report = analyse_snapshot(*snap, 5);
  const nlohmann::json j = snapshot_summary_json(*snap, report).at("allocator_settings");
  EXPECT_EQ(j.at("PYTORCH_CUDA_ALLOC_CONF"), nlohmann::json(""));
  EXPECT_EQ(j.at("max_split_size"), nlohmann::json(-1));
  EXPECT_TRUE(j.at("garbage_collection_threshold").is_number_float());
  EXPECT_EQ(j.at("garbage_collection_threshold").get<double>(), 0.0);
  EXPECT_EQ(j.at("expandable_segments"), nlohmann::json(false));
  EXPECT_EQ(j.at("pinned_num_register_threads"), nlohmann::json(1));
  EXPECT_EQ(j.at("graph_capture_record_stream_reuse"), nlohmann::json(false));
  const nlohmann::json& div = j.at("roundup_power2_divisions");
  ASSERT_TRUE(div.is_object());
  EXPECT_EQ(div.size(), 16u);
  EXPECT_EQ(div.at("1"), nlohmann::json(0));
  EXPECT_EQ(div.at("32768"), nlohmann::json(0));
}

}  // namespace
}  // namespace oomscope::snapshot
