// A row's key: a variant or a baseline of a kernel, compared as values and
// written as text in one place.
#include "kernel/variant_key.hpp"

#include <gtest/gtest.h>

#include <set>

namespace lego::kernel {
namespace {

TEST(VariantKey, ABaselineIsFlaggedNotPrefixed) {
  const VariantKey v = variant_key("transpose2d", "A=row,T=16");
  const VariantKey b = baseline_key("transpose2d", "openblas");
  EXPECT_EQ(v.id(), "A=row,T=16");
  EXPECT_EQ(b.id(), "baseline:openblas");
  EXPECT_EQ(b.name, "openblas");
  EXPECT_EQ(v.text(), "transpose2d/A=row,T=16");
  EXPECT_EQ(b.text(), "transpose2d/baseline:openblas");
  // A variant whose id happens to read "baseline:x" is still a variant.
  EXPECT_NE(variant_key("k", "baseline:x"), baseline_key("k", "x"));
  EXPECT_EQ(std::set<VariantKey>({v, b, v}).size(), 2u);
}

TEST(VariantKey, ARowReadBackKeepsItsFlag) {
  EXPECT_EQ(key_of_row("k", "baseline:copy", true), baseline_key("k", "copy"));
  EXPECT_EQ(key_of_row("k", "baseline:copy", false), variant_key("k", "baseline:copy"));
  EXPECT_EQ(key_of_row("k", "T=8", false), variant_key("k", "T=8"));
}

}  // namespace
}  // namespace lego::kernel
