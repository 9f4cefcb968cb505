// Every case of the paper's reference implementation must match exactly,
// apply and inv (tests/data/paper_layouts.json, a copy of shared/golden).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/verify.hpp"

namespace lego {
namespace {

nlohmann::json load(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return nlohmann::json::parse(in);
}

TEST(Golden, CopyMatchesSharedVectors) {
  std::ifstream shared(LEGO_SHARED_DIR "/golden/layouts.json");
  if (!shared.good()) GTEST_SKIP() << "shared/ is not beside this checkout; the in-repo copy is used below";
  EXPECT_EQ(load(LEGO_SHARED_DIR "/golden/layouts.json"), load(LEGO_TEST_DATA "/paper_layouts.json"));
}

TEST(Golden, EveryCaseMatchesApplyAndInv) {
  const auto doc = load(LEGO_TEST_DATA "/paper_layouts.json");
  ASSERT_GE(doc["cases"].size(), 16u);
  for (const auto& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>() + ": " + c["layout"].get<std::string>());
    const Plan plan = make_plan(parse_layout(c["layout"].get<std::string>()), {});
    EXPECT_EQ(plan.shape(), c["logical_shape"].get<std::vector<std::int64_t>>());
    const auto expected_apply = c["apply"].get<std::vector<std::int64_t>>();
    std::vector<std::int64_t> apply(static_cast<std::size_t>(plan.size()));
    plan.apply_all(apply.data());
    EXPECT_EQ(apply, expected_apply);
    if (c.contains("inv")) {
      const auto expected_inv = c["inv"].get<std::vector<std::vector<std::int64_t>>>();
      ASSERT_EQ(static_cast<std::int64_t>(expected_inv.size()), plan.physical_size());
      for (std::int64_t x = 0; x < plan.physical_size(); ++x) EXPECT_EQ(plan.inv_checked(x), expected_inv[x]) << "x=" << x;
    }
    EXPECT_TRUE(check_bijective(plan).bijective);
  }
}

}  // namespace
}  // namespace lego
