// The algebra's candidate layouts for a buffer, made as values (no text
// round trip) and placed one-to-one on the buffer's box.
#include "layout/candidates.hpp"

#include <gtest/gtest.h>

#include <set>

#include "layout/parse.hpp"

namespace lego {
namespace {

TEST(Candidates, EveryCandidatePlacesTheBoxOneToOne) {
  const auto all = buffer_candidates(32, 32, 4);
  std::set<std::string> names;
  std::size_t padded = 0;
  for (const auto& c : all) {
    EXPECT_TRUE(names.insert(c.name).second) << "twice: " << c.name;
    // The value prints as text the language reads back as the same layout.
    EXPECT_TRUE(equal(parse_layout(print(c.layout, Spacing::Readable)), c.layout)) << c.name;
    std::optional<Placement> p;
    try {
      p = place_buffer(c.layout, {}, 32, 32);
    } catch (const LegoError&) {  // a swizzle the GenP refuses at this shape
      continue;
    }
    if (!p) continue;  // a swizzle that is not one-to-one here
    EXPECT_EQ(p->offsets.size(), 32u * 32u) << c.name;
    EXPECT_EQ(std::set<std::int64_t>(p->offsets.begin(), p->offsets.end()).size(), 32u * 32u) << c.name;
    padded += p->extra_elements > 0;
  }
  EXPECT_EQ(padded, 4u);  // padded+1, +2, +4, +8 for 4-byte elements
  EXPECT_TRUE(names.count("antidiag") && names.count("skew") && names.count("swizzle(3,0,3)") && names.count("tiles 4x8 col-major grid"));
  // Wider elements pad less (at most 32 bytes a row); a non-square buffer has no antidiag.
  const auto wide = buffer_candidates(16, 64, 16);
  EXPECT_EQ(std::count_if(wide.begin(), wide.end(), [](const auto& c) { return c.family == "padded"; }), 2);
  EXPECT_EQ(std::count_if(wide.begin(), wide.end(), [](const auto& c) { return c.family == "antidiag"; }), 0);
}

TEST(Candidates, ReadableTextIsHowTheExamplesAreWritten) {
  const auto all = buffer_candidates(32, 32, 4);
  const auto padded = std::find_if(all.begin(), all.end(), [](const auto& c) { return c.name == "padded+1"; });
  ASSERT_NE(padded, all.end());
  EXPECT_EQ(print(padded->layout, Spacing::Readable), "OrderBy(Row(32, 33)).GroupBy([(32, 33)])");
  EXPECT_EQ(print(padded->layout), "OrderBy(Row(32,33)).GroupBy([(32,33)])");
  EXPECT_EQ(print(column_major_layout(4, 8), Spacing::Readable), "OrderBy(Col(4, 8)).GroupBy([(4, 8)])");
}

TEST(Candidates, APlacementIsWhereEachElementOfTheBoxLives) {
  const auto col = place_buffer(column_major_layout(4, 8), {}, 4, 8);
  ASSERT_TRUE(col);
  EXPECT_EQ(col->offsets[1], 4);  // (0, 1)
  EXPECT_EQ(col->offsets[8], 1);  // (1, 0)
  EXPECT_EQ(col->extra_elements, 0);
  const auto padded = place_buffer(row_major_layout(4, 9), {}, 4, 8);
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->offsets[8], 9);  // row 1 starts past the padding
  EXPECT_EQ(padded->extra_elements, 4);
  EXPECT_FALSE(place_buffer(row_major_layout(2, 8), {}, 4, 8));  // does not hold the box
}

}  // namespace
}  // namespace lego
