// Loop-nest code generation over structured lines: the micro-kernel
// choice, OpenMP's collapse and simd, fences, the flat form, and the loop
// variables an access inside the nest is folded onto.
#include "kernel/loop_code.hpp"

#include <gtest/gtest.h>

#include "layout/parse.hpp"
#include "layout/untiled_view.hpp"

namespace lego::kernel {
namespace {

// 64 x 64 in 16 x 16 tiles: loops i_0, j_0 (4 each) and i_1, j_1 (16 each).
OpenNest tiles(bool parallel, bool simd = false, bool flat = false) {
  placeholder::For loop;
  loop.names = {"i", "j"};
  loop.layout = "L";
  loop.parallel = parallel;
  loop.simd = simd;
  // Read by two names: the tiled layout's untiled view, as {{ for i, j in L }} reads it.
  return open_nest(loop, 0, untiled_view(parse_layout("OrderBy(Row(4, 4), Row(16, 16)).TileBy([4, 4], [16, 16])"), 2), {}, flat);
}

// B[j, i] = A[i, j] with both 64 x 64 row-major, as the nest's loops see them.
NestMove transpose_move() {
  NestMove m;
  m.placeholder = 1;
  m.dst = "B";
  m.src = "A";
  m.src_code = "A[a]";
  m.dst_code = "B[b]";
  m.src_shape = AccessShape{{{"i_0", 1024}, {"j_0", 16}, {"i_1", 64}, {"j_1", 1}}, 0, 4};
  m.dst_shape = AccessShape{{{"i_0", 16}, {"j_0", 1024}, {"i_1", 1}, {"j_1", 64}}, 0, 4};
  m.stream = true;
  return m;
}

TEST(LoopCode, WholeRangeLoopsAreStructuredLines) {
  const OpenNest n = tiles(false);
  ASSERT_TRUE(n.flat_fallback.empty()) << n.flat_fallback;
  ASSERT_EQ(n.lines.size(), 4u);
  EXPECT_TRUE(n.lines[3].whole);
  EXPECT_EQ(n.lines[3].var, "j_1");
  EXPECT_EQ(n.lines[3].extent, 16);
  EXPECT_EQ(print(n.lines[0]), "for (int64_t i_0 = 0; i_0 < 4; ++i_0) {");
  LoopLine stepped = n.lines[2];
  stepped.step = 16;
  EXPECT_EQ(print(stepped), "for (int64_t i_1 = 0; i_1 < 16; i_1 += 16) {");
  EXPECT_EQ(n.note, "L: 4 nested loops from its digits (ISL)");
}

TEST(LoopCode, OpenMpCollapsesLeadingLoopsUntilThereAreSixtyFourIterations) {
  const NestCode code = close_nest(tiles(true), false, target::resolve("x86-64-v4"));
  // 4 x 4 = 16 iterations are too few; 4 x 4 x 16 = 256 are enough.
  EXPECT_EQ(code.open.rfind("_Pragma(\"omp parallel for schedule(static) collapse(3)\") for (int64_t i_0 = 0;", 0), 0u) << code.open;
  EXPECT_NE(code.open.find("const int64_t i = 16 * i_0 + i_1;"), std::string::npos) << code.open;
  EXPECT_EQ(code.close, "}}}}");
  EXPECT_FALSE(code.microkernel);
}

TEST(LoopCode, ALoneMoveThatSwapsContiguousDimensionsBecomesARegisterTranspose) {
  OpenNest n = tiles(true);
  n.moves.push_back(transpose_move());
  const NestCode code = close_nest(n, true, target::resolve("x86-64-v4"));
  ASSERT_TRUE(code.microkernel);
  ASSERT_TRUE(code.move_code.has_value());
  EXPECT_EQ(*code.move_code, "lego_transpose_16x16<true>(&A[a], 64, &B[b], 64);");
  EXPECT_NE(code.open.find("for (int64_t i_1 = 0; i_1 < 16; i_1 += 16) { for (int64_t j_1 = 0; j_1 < 16; j_1 += 16) {"), std::string::npos)
      << code.open;
  // Never collapsed into the stepped loops; streamed stores are fenced by each thread in a region of our own.
  EXPECT_NE(code.open.find("_Pragma(\"omp parallel\") { _Pragma(\"omp for schedule(static) collapse(2) nowait\")"), std::string::npos)
      << code.open;
  EXPECT_EQ(code.close, "}}}} lego_store_fence(); }");
  ASSERT_EQ(code.notes.size(), 1u);
  EXPECT_NE(code.notes[0].find("B = A: 16x16 register transpose"), std::string::npos) << code.notes[0];
  // The same nest on an AVX2 target takes AVX2's tile; with a body that is not the move alone, no micro-kernel.
  EXPECT_NE(close_nest(n, true, target::resolve("x86-64-v3")).move_code.value_or("").find("lego_transpose_"), std::string::npos);
  EXPECT_FALSE(close_nest(n, false, target::resolve("x86-64-v4")).microkernel);
}

// B[k, j, i] = A[i, j, k] over 32 x 8 x 32, walked in slabs: T x T tiles of
// (i, k), 4 slices of j each, j between the tile's k and i loops.
TEST(LoopCode, ASwapAcrossAMiddleLoopStepsTheTwoLoopsAndKeepsTheMiddleOne) {
  placeholder::For loop;
  loop.names = {"i", "j", "k"};
  loop.layout = "L";
  loop.parallel = true;
  OpenNest n =
      open_nest(loop, 0, untiled_view(parse_layout("OrderBy(Row(2, 2, 2), Col(16, 4, 16)).TileBy([2, 2, 2], [16, 4, 16])"), 3), {}, false);
  ASSERT_TRUE(n.flat_fallback.empty()) << n.flat_fallback;
  NestMove m;
  m.dst = "B";
  m.src = "A";
  m.src_code = "A[a]";
  m.dst_code = "B[b]";
  m.stream = true;
  const std::int64_t a_stride[3] = {256, 32, 1}, b_stride[3] = {1, 32, 256};
  for (const auto& l : n.nest.loops) {
    m.src_shape.strides[l.var] = l.multiplier * a_stride[l.coordinate];
    m.dst_shape.strides[l.var] = l.multiplier * b_stride[l.coordinate];
  }
  m.src_shape.constant = m.dst_shape.constant = 0;
  n.moves.push_back(m);
  ASSERT_GE(n.lines.size(), 3u);
  const std::string middle = n.lines[n.lines.size() - 2].var;
  EXPECT_EQ(middle, "j_1");
  const NestCode code = close_nest(n, true, target::resolve("x86-64-v3"));
  ASSERT_TRUE(code.microkernel) << (code.notes.empty() ? "" : code.notes[0]);
  EXPECT_EQ(code.move_code.value_or(""), "lego_transpose_16x16<true>(&A[a], 256, &B[b], 256);");
  // The middle loop keeps its unit step between the stepped k and i loops.
  const std::size_t k = code.open.find(" += 16) {"), j = code.open.find("for (int64_t j_1 = 0; j_1 < 4; ++j_1) {"),
                    i = code.open.rfind(" += 16) {");
  ASSERT_NE(j, std::string::npos) << code.open;
  EXPECT_LT(k, j) << code.open;
  EXPECT_LT(j, i) << code.open;
  // OpenMP collapses none of the stepped loops nor any inside them.
  EXPECT_NE(code.open.find("collapse(2) nowait\") for (int64_t i_0"), std::string::npos) << code.open;
  ASSERT_EQ(code.notes.size(), 1u);
  EXPECT_NE(code.notes[0].find("16x16 register transpose (x86-64-v3) over loops k"), std::string::npos) << code.notes[0];
}

TEST(LoopCode, AMoveThatSwapsNothingStaysScalarAndSaysWhy) {
  OpenNest n = tiles(false, true);
  NestMove copy = transpose_move();
  copy.dst_shape = copy.src_shape;  // B[i, j] = A[i, j]: both contiguous along j_1
  n.moves.push_back(copy);
  const NestCode code = close_nest(n, true, target::resolve("x86-64-v4"));
  EXPECT_FALSE(code.microkernel);
  ASSERT_EQ(code.notes.size(), 1u);
  EXPECT_EQ(code.notes[0].rfind("B = A: scalar move (", 0), 0u) << code.notes[0];
  EXPECT_NE(code.open.find("_Pragma(\"omp simd\") for (int64_t j_1 = 0;"), std::string::npos) << code.open;
  EXPECT_FALSE(code.contiguous_move);  // simd asked: the template's own choice
}

// Without simd asked, a lone copy contiguous on both sides along the
// innermost loop is marked for vectors without alias checks (a broadcast
// source too); a move within one tensor, a body that is more than the move,
// a strided side or an absent stride is not, nor a loop OpenMP collapses.
TEST(LoopCode, AContiguousLoneMoveIsMarkedToVectorizeWithoutAliasChecks) {
  OpenNest n = tiles(true);
  NestMove copy = transpose_move();
  copy.dst_shape = copy.src_shape;
  n.moves.push_back(copy);
  const target::Target v4 = target::resolve("x86-64-v4");
  const NestCode code = close_nest(n, true, v4);
  EXPECT_TRUE(code.contiguous_move);
  EXPECT_NE(code.open.find("LEGO_CONTIGUOUS_MOVE for (int64_t j_1 = 0; j_1 < 16; ++j_1) {"), std::string::npos) << code.open;
  EXPECT_EQ(code.open.find("omp simd"), std::string::npos) << code.open;
  // 4 x 4 x 16 iterations are collapsed before the marked loop, never with it.
  EXPECT_NE(code.open.find("collapse(3)\") for (int64_t i_0"), std::string::npos) << code.open;
  ASSERT_EQ(code.notes.size(), 1u);
  EXPECT_EQ(code.notes[0].rfind("B = A: marked for vectors along j_1 (no register transpose: ", 0), 0u) << code.notes[0];
  EXPECT_FALSE(close_nest(n, false, v4).contiguous_move);
  OpenNest broadcast = n;
  broadcast.moves[0].src_shape.strides["j_1"] = 0;
  EXPECT_TRUE(close_nest(broadcast, true, v4).contiguous_move);
  OpenNest in_place = n;
  in_place.moves[0].src = "B";
  EXPECT_FALSE(close_nest(in_place, true, v4).contiguous_move);
  OpenNest strided = n;
  strided.moves[0].src_shape.strides["j_1"] = 64;  // read down a column, contiguous along no loop: no register transpose either
  const NestCode gathered = close_nest(strided, true, v4);
  EXPECT_FALSE(gathered.microkernel);
  EXPECT_FALSE(gathered.contiguous_move) << gathered.open;
  EXPECT_EQ(gathered.open.find("LEGO_CONTIGUOUS_MOVE"), std::string::npos) << gathered.open;
  ASSERT_EQ(gathered.notes.size(), 1u);
  EXPECT_EQ(gathered.notes[0].rfind("B = A: scalar move (", 0), 0u) << gathered.notes[0];
  OpenNest scattered = n;
  scattered.moves[0].dst_shape.strides["j_1"] = 64;
  scattered.moves[0].src_shape.strides["i_1"] = 64;  // A contiguous along j_1 only: no swap of contiguous dimensions
  EXPECT_FALSE(close_nest(scattered, true, v4).contiguous_move);
  OpenNest unknown = n;
  unknown.moves[0].dst_shape.strides.erase("j_1");  // not affine in the loop
  EXPECT_FALSE(close_nest(unknown, true, v4).contiguous_move);
  const std::string prelude = contiguous_move_prelude();
  EXPECT_NE(prelude.find("#define LEGO_CONTIGUOUS_MOVE _Pragma(\"clang loop vectorize(assume_safety) unroll(disable)\")"),
            std::string::npos);
  EXPECT_NE(prelude.find("#define LEGO_CONTIGUOUS_MOVE _Pragma(\"GCC ivdep\") _Pragma(\"GCC unroll 1\")"), std::string::npos);
  EXPECT_NE(prelude.find("must not overlap"), std::string::npos) << "an exported kernel tells its caller";
}

// 16 x 16 in tiles of 8: 2 x 2 x 8 iterations would all be collapsed, the
// marked loop with them; it is left out of the collapse.
TEST(LoopCode, OpenMpDoesNotCollapseTheMarkedLoop) {
  placeholder::For loop;
  loop.names = {"i", "j"};
  loop.layout = "L";
  loop.parallel = true;
  OpenNest n = open_nest(loop, 0, untiled_view(parse_layout("OrderBy(Row(2, 2), Row(8, 8)).TileBy([2, 2], [8, 8])"), 2), {}, false);
  ASSERT_EQ(n.lines.size(), 4u);
  NestMove copy = transpose_move();
  copy.src_shape = copy.dst_shape = AccessShape{{{"i_0", 128}, {"j_0", 8}, {"i_1", 16}, {"j_1", 1}}, 0, 4};
  n.moves.push_back(copy);
  const NestCode code = close_nest(n, true, target::resolve("x86-64-v4"));
  ASSERT_TRUE(code.contiguous_move);
  EXPECT_NE(code.open.find("collapse(3)\") for (int64_t i_0"), std::string::npos) << code.open;
  EXPECT_EQ(code.open.find("collapse(4)"), std::string::npos) << code.open;
}

TEST(LoopCode, TheFlatFormIsOneLoopWithTheCallersInverse) {
  OpenNest n = tiles(true, false, true);
  EXPECT_EQ(n.flat_fallback, "the flat form was asked for (flat=)");
  EXPECT_EQ(n.flat_size, 4096);
  EXPECT_NE(n.note.find("L: one flat loop with L.inv per element"), std::string::npos) << n.note;
  n.flat_code = "for (x) { decls;";
  const NestCode code = close_nest(n, true, target::resolve("x86-64-v4"));
  EXPECT_EQ(code.open, "_Pragma(\"omp parallel for schedule(static)\") for (x) { decls;");
  EXPECT_EQ(code.close, "}");
}

TEST(LoopCode, AnAccessInsideTheNestIsDefinedOverItsLoopVariables) {
  const std::vector<OpenNest> nests = {tiles(false)};
  DeriveRequest request;
  define_nest_indices(nests, {"j", "k"}, request);
  ASSERT_EQ(request.index_definitions.count("j"), 1u);
  EXPECT_EQ(request.index_definitions["j"], (std::vector<std::pair<std::string, std::int64_t>>{{"j_0", 16}, {"j_1", 1}}));
  EXPECT_EQ(request.index_definitions.count("k"), 0u);  // not a coordinate of the nest
  EXPECT_EQ(request.loop_variables.size(), 4u);
}

}  // namespace
}  // namespace lego::kernel
