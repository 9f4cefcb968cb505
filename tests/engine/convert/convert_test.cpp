// The conversion planner's known answers (issue 33): the attention pattern
// needs no movement, an MMA accumulator reaches 16-byte row vectors through
// a conflict-free buffer, a 32 x 32 transpose between lanes has both a
// shuffle plan and a shared plan, and a layout that is not linear over
// GF(2) converts too. Every plan listed is run on an iota tile.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "convert/explain.hpp"
#include "convert/planner.hpp"
#include "convert/tv_text.hpp"
#include "convert/xor_buffer.hpp"
#include "expr/diagnostic.hpp"

namespace lego::convert {
namespace {

ConversionReport plan(const std::string& from, const std::string& to, int rows, int cols, int bytes, int threads = 32) {
  const TvText f = read_tv(from, "FROM", rows, cols, threads);
  const TvText t = read_tv(to, "TO", f.tv.rows, f.tv.cols, threads);
  ConversionReport r = plan_conversion(f.tv, t.tv, {bytes, {}});
  for (const auto& p : r.plans)
    if (p.possible) {
      EXPECT_EQ(check_plan(p, f.tv, t.tv), "") << p.name;
    }
  return r;
}

const ConversionPlan* find(const ConversionReport& r, PlanKind kind, const std::string& family = "") {
  for (const auto& p : r.plans)
    if (p.kind == kind && (family.empty() || p.buffer.family == family)) return &p;
  return nullptr;
}

TEST(Convert, AnMmaAccumulatorIsTheNextMmasAOperandInRegisters) {
  const ConversionReport r = plan("mma.m16n8k16.f16:C, [1,1], [1,2]", "mma.m16n8k16.f16:A", 0, 0, 2);
  ASSERT_FALSE(r.plans.empty());
  const ConversionPlan& chosen = r.plans.front();
  EXPECT_EQ(chosen.kind, PlanKind::Registers);
  EXPECT_TRUE(chosen.possible);
  EXPECT_EQ(chosen.cost.shuffles, 0);
  EXPECT_EQ(chosen.cost.shared_bytes, 0);
  EXPECT_EQ(chosen.cost.score(), 0.0);
}

TEST(Convert, AnAccumulatorReachesRowVectorsThroughAConflictFreeBuffer) {
  // Thread t holds 8 consecutive f16 of row t / 2: one 16-byte vector.
  const ConversionReport r = plan("mma.m16n8k16.f16:C, [1,1], [1,2]", "((2,16),(8)):((128,1),(16))", 16, 16, 2);
  const ConversionPlan& chosen = r.plans.front();
  ASSERT_EQ(chosen.kind, PlanKind::Shared) << chosen.reason;
  EXPECT_EQ(chosen.store.excess_wavefronts, 0) << chosen.name;
  EXPECT_EQ(chosen.load.excess_wavefronts, 0) << chosen.name;
  EXPECT_EQ(chosen.load.vector_elements, 8) << "one 16-byte load a thread";
  const ConversionPlan* row = find(r, PlanKind::Shared, "row");
  ASSERT_NE(row, nullptr) << "the unswizzled row-major buffer is listed as the alternative";
  EXPECT_GT(row->store.excess_wavefronts, 0) << "its stores conflict";
  EXPECT_GT(row->cost.score(), chosen.cost.score());
  EXPECT_FALSE(find(r, PlanKind::Registers)->possible);
}

// Where both sides are linear over GF(2) the buffer is built, not only
// searched: a vector on one side and no conflict on either, which no
// single CuTe swizzle among the candidates reached (Sw<3,2,3> at 76 issue
// slots, tiles 1x8 at 60).
TEST(Convert, TheBuiltXorBufferIsConflictFreeOnBothSidesWhereNoCandidateIs) {
  struct Case {
    std::string from, to;
    int rows, cols, threads, bytes;
    double score;
    int store_vector;  // -1: either side may hold the vector
  };
  const std::vector<Case> cases = {
      {"OrderBy(Row(64, 64)).GroupBy([(64, 64)])", "OrderBy(Col(64, 64)).GroupBy([(64, 64)])", 0, 0, 128, 4, 44, 4},
      {"mma.m16n8k16.f16:C, [1,1], [2,4]", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", 0, 0, 32, 4, 28, 4},
      // Halves: lanes within one bank word are no conflict, so the loads may be 2 bytes a lane (a second review found these).
      {"OrderBy(Row(64, 64)).GroupBy([(64, 64)])", "OrderBy(Col(64, 64)).GroupBy([(64, 64)])", 0, 0, 128, 2, 40, 8},
      {"mma.m16n8k16.f16:C, [2,2], [1,2]", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", 0, 0, 128, 2, 13, 8},
      // A side's own bits kept off its vector's address bits, or its vectors lose their alignment.
      {"((2,32),(2,4)):((128,1),(256,32))", "((2,2,4,2,2),(4,2)):((32,128,1,16,64),(4,256))", 32, 16, 64, 2, 13, -1},
  };
  for (const Case& c : cases) {
    const ConversionReport r = plan(c.from, c.to, c.rows, c.cols, c.bytes, c.threads);
    const ConversionPlan& chosen = r.plans.front();
    ASSERT_EQ(chosen.kind, PlanKind::Shared) << c.from;
    EXPECT_EQ(chosen.buffer.family, "xor") << chosen.name;
    EXPECT_EQ(chosen.store.excess_wavefronts + chosen.load.excess_wavefronts, 0) << chosen.name;
    if (c.store_vector > 0) {
      EXPECT_EQ(chosen.store.vector_elements, c.store_vector) << chosen.name;
    }
    EXPECT_EQ(chosen.cost.score(), c.score) << c.from << " -> " << c.to << ": " << chosen.name;
  }
  // An antidiagonal layout is not linear: nothing is built, the candidates still plan it.
  const TvText antidiag = read_tv("OrderBy(GenP([32, 32], antidiag)).TileBy([32, 32])", "FROM", 32, 32, 32);
  const TvText row = read_tv("OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "TO", 32, 32, 32);
  EXPECT_TRUE(xor_buffers(antidiag.tv, row.tv, 4).empty());
  EXPECT_FALSE(xor_buffers(row.tv, row.tv, 4).empty());
  EXPECT_EQ(
      plan("OrderBy(GenP([32, 32], antidiag)).TileBy([32, 32])", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", 32, 32, 4).plans.front().kind,
      PlanKind::Shared);
}

// Halves travel two to a 32-bit shuffle when a lane needs both of a
// sender's word: half the shuffles of the same move in floats.
TEST(Convert, HalvesThatTravelTogetherShareAShuffle) {
  const std::string from = "((4,8),(2,2)):((32,1),(16,8))", to = "((2,2,8),(2,2)):((64,32,1),(16,8))";
  const ConversionReport halves = plan(from, to, 16, 8, 2), floats = plan(from, to, 16, 8, 4);
  const ConversionPlan* h = find(halves, PlanKind::Shuffles);
  const ConversionPlan* f = find(floats, PlanKind::Shuffles);
  ASSERT_TRUE(h && f && h->possible && f->possible);
  EXPECT_EQ(h->packed, 2);
  EXPECT_EQ(f->packed, 1);
  EXPECT_EQ(f->cost.shuffles, 4);
  EXPECT_EQ(h->cost.shuffles, 2);
  EXPECT_EQ(h->rounds.front().size(), 4u) << "four element rounds, two to a shuffle";
  // A row-to-column transpose sends each lane's halves to different lanes: nothing to pack.
  const ConversionReport transpose =
      plan("OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", 32, 32, 2);
  EXPECT_EQ(find(transpose, PlanKind::Shuffles)->packed, 1);
  EXPECT_EQ(find(transpose, PlanKind::Shuffles)->cost.shuffles, 31);
}

TEST(Convert, ARowPerLaneBecomesAColumnPerLaneByShufflesOrAPaddedBuffer) {
  const ConversionReport r = plan("OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", 32, 32, 4);
  const ConversionPlan* shuffles = find(r, PlanKind::Shuffles);
  ASSERT_NE(shuffles, nullptr);
  ASSERT_TRUE(shuffles->possible);
  EXPECT_EQ(shuffles->cost.shuffles, 31) << "every lane needs one value from each other lane";
  const ConversionPlan& chosen = r.plans.front();
  ASSERT_EQ(chosen.kind, PlanKind::Shared) << chosen.reason;
  EXPECT_EQ(chosen.store.excess_wavefronts + chosen.load.excess_wavefronts, 0) << chosen.name;
  EXPECT_LT(chosen.cost.score(), shuffles->cost.score());
  EXPECT_NE(shuffles->reason.find("more"), std::string::npos) << shuffles->reason;
}

TEST(Convert, AnAntidiagonalLayoutThatIsNotLinearConvertsToo) {
  const ConversionReport r =
      plan("OrderBy(GenP([32, 32], antidiag)).TileBy([32, 32])", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", 32, 32, 4);
  ASSERT_FALSE(r.plans.empty());
  EXPECT_TRUE(r.plans.front().possible);
  // Each lane receives 31 values and sends 31: the edge colouring's 31 rounds are the least (greedy rounds took 37).
  const ConversionPlan* shuffles = find(r, PlanKind::Shuffles);
  ASSERT_NE(shuffles, nullptr);
  EXPECT_EQ(shuffles->cost.shuffles, 31);
}

// Its time (the target: under a second) is measured by
// tests/bench/convert_bench.cpp, not here: a loaded machine under the
// sanitizers took 5.6 s.
TEST(Convert, ASixtyFourSquareTileOverFourWarpsPlansThroughSharedMemory) {
  const ConversionReport r = plan("OrderBy(Row(64, 64)).GroupBy([(64, 64)])", "OrderBy(Col(64, 64)).GroupBy([(64, 64)])", 64, 64, 4, 128);
  EXPECT_EQ(r.plans.front().kind, PlanKind::Shared);
  EXPECT_FALSE(find(r, PlanKind::Shuffles)->possible) << "rows cross warps";
}

TEST(Convert, ASwapThatDependsOnTheLaneIsSelectsNotRenames) {
  // Odd rows swap their two values: thread t's v0 is column (t % 2).
  const ConversionReport r = plan("OrderBy(Row(32, 2)).GroupBy([(32, 2)])",
                                  "OrderBy(GenP([32, 2], lambda i, j: i * 2 + (i + j) % 2)).GroupBy([(32, 2)])", 0, 0, 4);
  const ConversionPlan& chosen = r.plans.front();
  ASSERT_EQ(chosen.kind, PlanKind::Registers);
  EXPECT_GT(chosen.cost.selects, 0);
  EXPECT_GT(chosen.cost.score(), 0.0);
}

TEST(Convert, ABufferBeyondStaticSharedMemoryIsNotAPlan) {
  try {
    plan("OrderBy(Row(256, 256)).GroupBy([(256, 256)])", "OrderBy(Col(256, 256)).GroupBy([(256, 256)])", 0, 0, 4, 1024);
    FAIL() << "a 256 KiB buffer was planned";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("static shared memory"), std::string::npos) << e.what();
  }
}

TEST(Convert, ThreeValuesAThreadAreMovedByScalarAccesses) {
  // 12-byte groups are no access width: the shared plans fall back to narrower vectors.
  const ConversionReport r = plan("OrderBy(Row(32, 3)).GroupBy([(32, 3)])", "OrderBy(Col(32, 3)).GroupBy([(32, 3)])", 0, 0, 4);
  const ConversionPlan* shared = find(r, PlanKind::Shared);
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->store.vector_elements, 1);
  EXPECT_EQ(plan("OrderBy(Row(32, 3)).GroupBy([(32, 3)])", "OrderBy(Row(32, 3)).GroupBy([(32, 3)])", 0, 0, 4).plans.front().kind,
            PlanKind::Registers);
}

// The steps the studio draws: each one brings elements, none takes one
// away, and the last has the whole tile where TO wants it.
void expect_steps_fill_the_tile(const Conversion& c, const ConversionPlan& p, std::size_t expected_steps) {
  const std::vector<ConversionStep> steps = conversion_steps(c.report, p, c.from.tv, c.to.tv);
  ASSERT_EQ(steps.size(), expected_steps) << p.name;
  std::size_t before = 0;
  for (const ConversionStep& s : steps) {
    std::size_t now = 0;
    for (const char a : s.arrived) now += a ? 1 : 0;
    EXPECT_GE(now, before) << s.title;
    before = now;
  }
  EXPECT_EQ(before, static_cast<std::size_t>(c.report.rows * c.report.cols)) << p.name;
}

TEST(ConvertExplained, StepsAndHeatmapsFollowEachPlan) {
  const Conversion rows =
      plan_checked({"OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", 0, 0, 1, "f32"});
  const ConversionPlan* shuffles = find(rows.report, PlanKind::Shuffles);
  ASSERT_NE(shuffles, nullptr);
  // FROM (the diagonal in place), then one step a round.
  expect_steps_fill_the_tile(rows, *shuffles, 1 + shuffles->rounds.front().size());
  const auto first = conversion_steps(rows.report, *shuffles, rows.from.tv, rows.to.tv).front();
  EXPECT_EQ(std::count(first.arrived.begin(), first.arrived.end(), 1), 32) << "the diagonal stays in its lane and register";
  const ConversionPlan* row_buffer = find(rows.report, PlanKind::Shared, "row");
  ASSERT_NE(row_buffer, nullptr);
  expect_steps_fill_the_tile(rows, *row_buffer, 3);
  // A row-major buffer stored by rows of 16 bytes a lane: 8 lanes a phase
  // all in banks 0..3, the worst instruction's words drawn lane by bank.
  EXPECT_EQ(row_buffer->store.worst_ways, 8);
  std::int64_t words = 0, beyond_bank_3 = 0;
  for (const auto& lane : row_buffer->store.worst_lane_bank)
    for (std::size_t b = 0; b < lane.size(); ++b) (b < 4 ? words : beyond_bank_3) += lane[b];
  EXPECT_EQ(words, 32 * 4);
  EXPECT_EQ(beyond_bank_3, 0);
  const Conversion mma = plan_checked({"mma.m16n8k16.f16:C, [1,1], [1,2]", "mma.m16n8k16.f16:A", 0, 0, 1, "f16"});
  ASSERT_EQ(mma.report.plans.front().kind, PlanKind::Registers);
  expect_steps_fill_the_tile(mma, mma.report.plans.front(), 2);
  EXPECT_NE(movement_text(mma.report, mma.report.plans.front(), 4).find("thread 0:"), std::string::npos);
  EXPECT_THROW(plan_checked({"mma.m16n8k16.f16:A", "mma.m16n8k16.f16:A", 0, 0, 1, "f17"}), LegoError);
  EXPECT_EQ(element_bytes("bf16"), 2);
}

TEST(Convert, MismatchedTilesAndThreadsAreRefusedWithTheReason) {
  const TvText a = read_tv("mma.m16n8k16.f16:A", "FROM", 0, 0, 32);
  const TvText b = read_tv("OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "TO", 32, 32, 32);
  EXPECT_THROW(plan_conversion(a.tv, b.tv, {}), LegoError);
  EXPECT_THROW(read_tv("((2,16),(8)):((128,1),(16))", "TO", 0, 0, 32), LegoError);
  EXPECT_THROW(read_tv("Sw<3,3,3> o (32,8):(8,1)", "TO", 32, 8, 32), LegoError) << "a swizzle is a buffer's, not a TV layout's";
  const TvText wide = read_tv("((2048),(1)):((1),(0))", "FROM", 2048, 1, 2048);
  EXPECT_THROW(plan_conversion(wide.tv, wide.tv, {}), LegoError) << "more than a block's 1024 threads";
  try {  // a parse error says where, in the side's own text
    read_tv("OrderBy(Row(16, 16).GroupBy([(16, 16)])", "FROM", 0, 0, 32);
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("FROM (OrderBy(Row(16, 16).GroupBy([(16, 16)])): column 20: "), std::string::npos) << e.what();
    EXPECT_EQ(e.diagnostic().span.begin, 19u);
  }
  try {
    read_tv("OrderBy(Row(16, 16)).GroupBy([(16, 16)])", "TO", 32, 32, 32);
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("TO"), std::string::npos) << e.what();
  }
}

TEST(Convert, AtomAndCuTeWrappersAreTheirThreadValueLayouts) {
  // The layout language writes an atom's TV layout as Atom(...) and a CuTe one as CuTe(...): the same layouts bare.
  const Conversion same = plan_checked({"Atom(mma.m16n8k16.f16:C, [1,1], [2,1])", "mma.m16n8k16.f16:C, [1,1], [2,1]", 0, 0, 1, ""});
  EXPECT_EQ(same.report.plans.front().kind, PlanKind::Registers);
  EXPECT_EQ(same.report.plans.front().cost.score(), 0.0);
  const TvText bare = read_tv("(32,32):(1,32)", "FROM", 32, 32, 32), wrapped = read_tv("CuTe((32,32):(1,32))", "FROM", 32, 32, 32);
  EXPECT_EQ(bare.tv.cells, wrapped.tv.cells);
  EXPECT_EQ(wrapped.form, TvForm::Cute);
  // Inside a layout of the tile they would be read as a tile's offsets: refused, at the piece.
  try {
    read_tv("OrderBy(Atom(mma.m16n8k16.f16:C)).GroupBy([(32, 4)])", "FROM", 0, 0, 32);
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("column 9: an Atom(...) piece is a thread-value layout"), std::string::npos) << e.what();
  }
  // An error inside a wrapper points into the text as written.
  try {
    read_tv("Atom(mma.m16n8k16.f16:X)", "FROM", 0, 0, 32);
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("column 23: "), std::string::npos) << e.what();
  }
}

TEST(Convert, TheElementTypeIsTheAtomsUnlessANarrowerOneIsAsked) {
  EXPECT_EQ(plan_checked({"mma.m16n8k16.f16:C, [1,1], [1,2]", "mma.m16n8k16.f16:A", 0, 0, 1, ""}).element, "f16");  // TO's A operand
  EXPECT_EQ(plan_checked({"mma.m16n8k16.f16:C", "mma.m16n8k16.f16:C", 0, 0, 1, ""}).element, "f32");                // the accumulator
  EXPECT_EQ(plan_checked({"OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", 0, 0, 1, ""}).element,
            "f32");
  // An epilogue converts f32 accumulators to halves in registers before moving them: planned, with a note.
  const Conversion epilogue = plan_checked({"mma.m16n8k16.f16:C, [1,1], [1,2]", "((2,16),(8)):((128,1),(16))", 16, 16, 1, "f16"});
  EXPECT_EQ(epilogue.report.element_bytes, 2);
  EXPECT_NE(epilogue.element_note.find("FROM's operand holds f32"), std::string::npos) << epilogue.element_note;
  EXPECT_EQ(plan_checked({"mma.m16n8k16.f16:A", "mma.m16n8k16.f16:A", 0, 0, 1, "f16"}).element_note, "");
  // Wider than either side holds: nothing to move that wide.
  EXPECT_THROW(plan_checked({"mma.m16n8k16.f16:A", "mma.m16n8k16.f16:A", 0, 0, 1, "f32"}), LegoError);
}

TEST(Convert, ALayoutThatPutsTwoElementsInOnePlaceSaysWhich) {
  try {
    read_tv("OrderBy(GenP([32, 32], lambda i, j: i)).GroupBy([(32, 32)])", "FROM", 0, 0, 32);
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("puts elements (0, 0) and (0, 1) both at 0"), std::string::npos) << e.what();
  }
  // A tile over a CTA's registers is refused before its elements are placed.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(read_tv("OrderBy(Row(1024, 1024)).GroupBy([(1024, 1024)])", "FROM", 0, 0, 1024), LegoError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(Convert, ShufflesPayForInLaneMovesAndTheirScheduleIsChosenByCost) {
  // All in-lane, the register depending on the lane (above 32): 240 selects as registers. One value swapped
  // between lanes 0 and 1 besides must cost the shuffles plan the same selects, not win on its one shuffle.
  const std::string from = "OrderBy(Row(1, 512)).GroupBy([(1, 512)])";
  const std::string swapped =
      "OrderBy(GenP([1, 512], lambda i, j: (16 if j == 1 else (1 if j == 16 else j)) if j < 32 else (j // 16) * 16 + ((j % 16) ^ "
      "((j // 16) % 16)))).GroupBy([(1, 512)])";
  const ConversionReport r = plan(from, swapped, 1, 512, 4);
  const ConversionPlan* shuffles = find(r, PlanKind::Shuffles);
  ASSERT_NE(shuffles, nullptr);
  EXPECT_GE(shuffles->cost.selects, 240);
  EXPECT_EQ(r.plans.front().kind, PlanKind::Shared);
  // Greedy rounds with fewer selects beat the edge colouring's one round fewer: 9 shuffles and 28 selects (16 slots).
  const ConversionReport s = plan("OrderBy(GenP([1, 256], lambda i, j: ((j * 5 + 160) % 256) ^ 55)).GroupBy([(1, 256)])",
                                  "OrderBy(GenP([1, 256], lambda i, j: ((j * 25 + 94) % 256) ^ 183)).GroupBy([(1, 256)])", 1, 256, 4);
  EXPECT_EQ(s.plans.front().kind, PlanKind::Shuffles);
  EXPECT_LE(s.plans.front().cost.score(), 16.0);
}

}  // namespace
}  // namespace lego::convert
