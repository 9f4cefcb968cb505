// Triton-style linear layouts out: for power-of-two layouts linear over
// GF(2) the bases (one image per input bit) reproduce the layout's table at
// every index by XOR of the set bits; others are refused with the reason.
#include "layout/linear.hpp"

#include <gtest/gtest.h>

#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego {
namespace {

std::vector<std::int64_t> table_of(const std::string& text, std::vector<std::int64_t>* shape) {
  const Plan plan = make_plan(parse_layout(text), {});
  std::vector<std::int64_t> t(static_cast<std::size_t>(plan.size()));
  plan.apply_all(t.data());
  *shape = plan.shape();
  return t;
}

// XOR of the images of the set bits, computed here from the bases alone.
std::int64_t from_bases(const LinearBases& l, const std::vector<std::int64_t>& coord) {
  std::int64_t x = 0;
  for (std::size_t k = 0; k < coord.size(); ++k)
    for (std::size_t b = 0; b < l.bases[k].size(); ++b)
      if (coord[k] >> b & 1) x ^= l.bases[k][b];
  return x;
}

TEST(Linear, BasesReproduceRowColTileAndSwizzleLayoutsEverywhere) {
  for (const char* text : {"OrderBy(Row(8,16)).GroupBy([(8,16)])", "OrderBy(Col(8,16)).GroupBy([(8,16)])",
                           "OrderBy(Row(4,4), Row(2,4)).TileBy([4,4],[2,4])", "OrderBy(GenP([8,8], swizzle(3,0,3))).GroupBy([(8,8)])",
                           "OrderBy(GenP([32,32], swizzle(5,0,5))).GroupBy([(32,32)])", "OrderBy(GenP([8,8], morton)).GroupBy([(8,8)])"}) {
    std::vector<std::int64_t> shape;
    const std::vector<std::int64_t> table = table_of(text, &shape);
    const LinearBases l = linear_bases(shape, table);
    ASSERT_TRUE(l.linear()) << text << ": " << l.why_not;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(table.size()); ++i) {
      std::vector<std::int64_t> coord(shape.size());
      std::int64_t rest = i;
      for (std::size_t k = shape.size(); k-- > 0;) coord[k] = rest % shape[k], rest /= shape[k];
      ASSERT_EQ(from_bases(l, coord), table[static_cast<std::size_t>(i)]) << text << " at " << i;
    }
  }
  std::vector<std::int64_t> shape;
  const LinearBases row = linear_bases({8, 16}, table_of("OrderBy(Row(8,16)).GroupBy([(8,16)])", &shape));
  EXPECT_EQ(to_string(row, 128).substr(0, 34), " - dim0=1 -> 16\n - dim0=2 -> 32\n -");
}

TEST(Linear, NonLinearOrNonPowerOfTwoLayoutsSayWhy) {
  std::vector<std::int64_t> shape;
  const LinearBases anti = linear_bases({8, 8}, table_of("OrderBy(GenP([8,8], antidiag)).TileBy([8,8])", &shape));
  EXPECT_FALSE(anti.linear());
  EXPECT_NE(anti.why_not.find("not linear over GF(2): index"), std::string::npos) << anti.why_not;
  const LinearBases six = linear_bases({6, 6}, table_of("OrderBy(Row(6,6)).GroupBy([(6,6)])", &shape));
  EXPECT_NE(six.why_not.find("6 elements, not a power of two"), std::string::npos) << six.why_not;
}

}  // namespace
}  // namespace lego
