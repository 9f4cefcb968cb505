// Warp collectives on known inputs: an ldmatrix of an iota tile, a
// stmatrix that writes it back, an mma of small integers, and shuffles.
#include "atom/collectives.hpp"

#include <gtest/gtest.h>

#include "expr/diagnostic.hpp"

namespace lego::atom {
namespace {

// Row `lane` of the stored matrices holds lane * 8 .. lane * 8 + 7.
MatrixRow iota_row(int lane) {
  MatrixRow r{};
  for (int k = 0; k < 8; ++k) r[static_cast<std::size_t>(k)] = static_cast<std::uint16_t>(lane * 8 + k);
  return r;
}

std::uint32_t pair(std::uint32_t low, std::uint32_t high) { return low | high << 16; }

TEST(Collectives, LdmatrixOfAnIotaTileGivesEachLaneItsRowNeighbours) {
  const auto regs = ldmatrix(resolve_atom("ldmatrix.x4"), iota_row);
  EXPECT_EQ(regs[0][0], pair(0, 1));
  EXPECT_EQ(regs[5][0], pair(10, 11));     // group 1, thread 1: row 1, columns 2 and 3
  EXPECT_EQ(regs[0][1], pair(64, 65));     // register 1: matrix 1's row 0 (stored row 8)
  EXPECT_EQ(regs[31][3], pair(254, 255));  // matrix 3's row 7, columns 6 and 7
  const auto trans = ldmatrix(resolve_atom("ldmatrix.x4.trans"), iota_row);
  EXPECT_EQ(trans[1][0], pair(16, 24));  // columns of the stored rows: (2, 0) and (3, 0)
  EXPECT_EQ(trans[4][0], pair(1, 9));    // (0, 1) and (1, 1)
  const auto x1 = ldmatrix(resolve_atom("ldmatrix.x1"), [](int lane) {
    EXPECT_LT(lane, 8) << "ldmatrix.x1 reads addresses from lanes 0..7 only";
    return iota_row(lane);
  });
  EXPECT_EQ(x1[31][0], pair(62, 63));
  EXPECT_EQ(x1[31][1], 0u);
}

TEST(Collectives, StmatrixWritesBackWhatLdmatrixRead) {
  const auto regs = ldmatrix(resolve_atom("ldmatrix.x4"), iota_row);
  const std::vector<MatrixRow> rows = stmatrix(resolve_atom("stmatrix.x4"), regs);
  ASSERT_EQ(rows.size(), 32u);
  for (int r = 0; r < 32; ++r) EXPECT_EQ(rows[static_cast<std::size_t>(r)], iota_row(r)) << r;
  EXPECT_THROW(stmatrix(resolve_atom("ldmatrix.x4"), regs), LegoError);
  EXPECT_THROW(ldmatrix(resolve_atom("mma.m16n8k16.f16"), iota_row), LegoError);
}

// A[m][k] = m + 2k, B the 16 x 8 identity's first columns, C 100 everywhere:
// D[m][n] = m + 2n + 100, whatever lane holds it.
TEST(Collectives, MmaOfSmallIntegers) {
  const Atom atom = resolve_atom("mma.m16n8k16.f16");
  const auto fragments = [](const TvLayout& tv, const std::function<double(int row, int col)>& value) {
    std::vector<Fragment> f(static_cast<std::size_t>(tv.threads), Fragment(static_cast<std::size_t>(tv.values)));
    for (int t = 0; t < tv.threads; ++t)
      for (int v = 0; v < tv.values; ++v)
        f[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] = value(tv.at(t, v).row, tv.at(t, v).col);
    return f;
  };
  const auto a = fragments(atom.operand("A").tv, [](int m, int k) { return m + 2.0 * k; });
  const auto b = fragments(atom.operand("B").tv, [](int k, int n) { return k == n ? 1.0 : 0.0; });
  const auto c = fragments(atom.operand("C").tv, [](int, int) { return 100.0; });
  const std::vector<Fragment> d = mma(atom, a, b, c);
  ASSERT_EQ(d.size(), 32u);
  EXPECT_EQ(d[0][0], 100.0);             // D[0][0]
  EXPECT_EQ(d[5][1], 1 + 6 + 100.0);     // lane 5 value 1: row 1, column 3
  EXPECT_EQ(d[31][3], 15 + 14 + 100.0);  // row 15, column 7
  std::vector<Fragment> short_a = a;
  short_a[3].pop_back();
  EXPECT_THROW(mma(atom, short_a, b, c), LegoError);
}

TEST(Collectives, ShufflesFollowCudasRules) {
  std::array<int, kWarpLanes> next{}, one{}, sixteen{};
  for (int l = 0; l < kWarpLanes; ++l)
    next[static_cast<std::size_t>(l)] = (l + 1) % 32, one[static_cast<std::size_t>(l)] = 1, sixteen[static_cast<std::size_t>(l)] = 16;
  const auto rotate = shuffle_sources(Shuffle::Index, next);
  EXPECT_EQ(rotate[0], 1);
  EXPECT_EQ(rotate[31], 0);
  const auto up = shuffle_sources(Shuffle::Up, one);
  EXPECT_EQ(up[0], 0);  // below the delta: its own
  EXPECT_EQ(up[7], 6);
  const auto down = shuffle_sources(Shuffle::Down, one, 8);
  EXPECT_EQ(down[6], 7);
  EXPECT_EQ(down[7], 7);  // past its segment's end: its own
  EXPECT_EQ(shuffle_sources(Shuffle::Xor, one)[6], 7);
  const auto xor16 = shuffle_sources(Shuffle::Xor, sixteen, 8);
  EXPECT_EQ(xor16[0], 0);                                     // lane 16 is in a later segment: its own value
  EXPECT_EQ(xor16[16], 0);                                    // an earlier segment is reached
  EXPECT_EQ(shuffle_sources(Shuffle::Index, next, 8)[7], 0);  // srcLane 8 wraps into the segment of 8
  EXPECT_THROW(shuffle_sources(Shuffle::Index, next, 6), LegoError);
}

}  // namespace
}  // namespace lego::atom
