// The known answers for atoms walking a shared buffer: a 64 x 64
// fp16 row-major tile read by ldmatrix.x4 is 8-way conflicted (its 128-byte
// rows all start in bank 0); CuTe's 128-byte swizzle, Swizzle<3,3,3> on
// 8 x 64 halves, makes it conflict-free; so does padding each row by 16
// bytes. An atom that cannot read a buffer says why.
#include "analysis/atom_walks.hpp"

#include <gtest/gtest.h>

#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::analysis {
namespace {

Plan plan_of(const std::string& text) { return make_plan(parse_layout(text), {}); }

const std::string kRowMajor64 = "OrderBy(Row(64, 64)).GroupBy([(64, 64)])";
const std::string kSwizzled64 = "CuTe(Sw<3,3,3> o (64,64):(64,1))";  // the 8 x 64 swizzle atom down the rows

TEST(AtomWalks, LdmatrixOfARowMajorFp16TileIsEightWay) {
  const WalkReport w = atom_walk(plan_of(kRowMajor64), 2, atom::resolve_atom("ldmatrix.x4"));
  EXPECT_EQ(w.name, "ldmatrix.x4");
  EXPECT_EQ(w.steps, 16);  // 16 x 16 sub-tiles
  EXPECT_EQ(w.report.max_ways, 8);
  EXPECT_EQ(w.report.wavefronts, 16 * 4 * 8);  // four phases of eight wavefronts each
}

TEST(AtomWalks, TheHundredTwentyEightByteSwizzleIsConflictFree) {
  for (const char* name : {"ldmatrix.x4", "ldmatrix.x4.trans", "ldmatrix.x2", "stmatrix.x4"}) {
    const WalkReport w = atom_walk(plan_of(kSwizzled64), 2, atom::resolve_atom(name));
    EXPECT_EQ(w.report.max_ways, 1) << name;
    EXPECT_EQ(w.report.excess_wavefronts, 0) << name;
  }
  // The atom itself, 8 x 64 halves, by ldmatrix.x1: one matrix per step.
  EXPECT_EQ(atom_walk(plan_of("CuTe(Sw<3,3,3> o (8,64):(64,1))"), 2, atom::resolve_atom("ldmatrix.x1")).report.max_ways, 1);
  EXPECT_EQ(atom_walk(plan_of("OrderBy(Row(8, 64)).GroupBy([(8, 64)])"), 2, atom::resolve_atom("ldmatrix.x1")).report.max_ways, 8);
}

TEST(AtomWalks, PaddingEachRowBySixteenBytesIsConflictFree) {
  const Plan padded = plan_of("CuTe((64,64):(72,1))");
  EXPECT_EQ(atom_walk(padded, 2, atom::resolve_atom("ldmatrix.x4")).report.max_ways, 1);
}

TEST(AtomWalks, CpAsyncCopiesConsecutiveVectors) {
  const WalkReport row_major = atom_walk(plan_of(kRowMajor64), 2, atom::resolve_atom("cp.async.16"));
  EXPECT_EQ(row_major.steps, 64 * 64 * 2 / 16 / 32);
  EXPECT_EQ(row_major.report.max_ways, 1);
  EXPECT_EQ(atom_walk(plan_of(kSwizzled64), 2, atom::resolve_atom("cp.async.16")).report.max_ways, 1);
  EXPECT_EQ(atom_walk(plan_of(kRowMajor64), 4, atom::resolve_atom("cp.async.4")).report.max_ways, 1);
}

TEST(AtomWalks, AnAtomThatCannotReadTheBufferSaysWhy) {
  const auto why = [](const std::string& layout, int bytes, const char* name) {
    try {
      atom_walk(plan_of(layout), bytes, atom::resolve_atom(name));
    } catch (const LegoError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // Column-major: a matrix row's eight halves are 64 elements apart.
  EXPECT_NE(why("OrderBy(Col(64, 64)).GroupBy([(64, 64)])", 2, "ldmatrix.x4").find("not contiguous"), std::string::npos);
  EXPECT_NE(why(kRowMajor64, 4, "ldmatrix.x4").find("16-bit"), std::string::npos);
  EXPECT_NE(why("OrderBy(Row(24, 64)).GroupBy([(24, 64)])", 2, "ldmatrix.x4").find("do not divide"), std::string::npos);
  EXPECT_NE(why(kRowMajor64, 2, "mma.m16n8k16.f16").find("registers"), std::string::npos);
  // Padding by 4 bytes: every other row's 16-byte request is misaligned.
  EXPECT_NE(why("CuTe((64,64):(66,1))", 2, "ldmatrix.x4").find("not aligned"), std::string::npos);
  EXPECT_NE(why(kRowMajor64, 4, "cp.async.8").find(""), std::string::npos);
  EXPECT_NE(why("OrderBy(Row(64, 6)).GroupBy([(64, 6)])", 4, "cp.async.16").find("do not divide"), std::string::npos);
}

}  // namespace
}  // namespace lego::analysis
