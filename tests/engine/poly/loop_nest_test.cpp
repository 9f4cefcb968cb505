// Loop nests from iteration layouts: golden nests for the common shapes, and
// for random layouts the printed nest, compiled by the JIT, visits every
// logical index exactly once in the layout's physical order.
#include "poly/loop_nest.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "engine/layout/random_layout.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/untiled_view.hpp"
#include "run/jit.hpp"
#include "sym/print.hpp"

namespace lego::poly {
namespace {

std::string nest_text(const std::string& layout, std::size_t coordinates) {
  LayoutAst ast = parse_layout(layout);
  if (coordinates != logical_rank(ast)) ast = untiled_view(ast, coordinates);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < coordinates; ++k) names.push_back(std::string(1, "ijkl"[k]));
  const LoopNestResult r = build_loop_nest(ast, {}, names);
  if (!r.fallback.empty()) return "fallback: " + r.fallback;
  std::string out;
  for (const auto& h : r.nest.headers) out += h + "\n";
  return out + coordinate_declarations(r.nest);
}

TEST(LoopNest, GoldenNests) {
  EXPECT_EQ(nest_text("OrderBy(Row(4,6)).GroupBy([(4,6)])", 2), "for (int64_t i = 0; i < 4; ++i) {\nfor (int64_t j = 0; j < 6; ++j) {\n");
  EXPECT_EQ(nest_text("OrderBy(Col(4,6)).GroupBy([(4,6)])", 2), "for (int64_t j = 0; j < 6; ++j) {\nfor (int64_t i = 0; i < 4; ++i) {\n");
  // Tiles: each TileBy level is a pair of loops; the coordinates are affine in them.
  EXPECT_EQ(nest_text("OrderBy(Row(2,3), Row(2,2)).TileBy([2,3],[2,2])", 2),
            "for (int64_t i_0 = 0; i_0 < 2; ++i_0) {\nfor (int64_t j_0 = 0; j_0 < 3; ++j_0) {\n"
            "for (int64_t i_1 = 0; i_1 < 2; ++i_1) {\nfor (int64_t j_1 = 0; j_1 < 2; ++j_1) {\n"
            "const int64_t i = 2 * i_0 + i_1; const int64_t j = 2 * j_0 + j_1;");
  // Column-major tiles: j's two digits are adjacent, so they are one loop.
  EXPECT_EQ(nest_text("OrderBy(Row(2,3), Col(2,2)).TileBy([2,3],[2,2])", 2),
            "for (int64_t i_0 = 0; i_0 < 2; ++i_0) {\nfor (int64_t j = 0; j < 6; ++j) {\nfor (int64_t i_1 = 0; i_1 < 2; ++i_1) {\n"
            "const int64_t i = 2 * i_0 + i_1;");
  EXPECT_EQ(nest_text("OrderBy(Row(2,2), Row(2,2), Row(3,2)).TileBy([2,2],[2,2],[3,2])", 2),
            "for (int64_t i_0 = 0; i_0 < 2; ++i_0) {\nfor (int64_t j_0 = 0; j_0 < 2; ++j_0) {\n"
            "for (int64_t i_1 = 0; i_1 < 2; ++i_1) {\nfor (int64_t j_1 = 0; j_1 < 2; ++j_1) {\n"
            "for (int64_t i_2 = 0; i_2 < 3; ++i_2) {\nfor (int64_t j_2 = 0; j_2 < 2; ++j_2) {\n"
            "const int64_t i = 6 * i_0 + 3 * i_1 + i_2; const int64_t j = 4 * j_0 + 2 * j_1 + j_2;");
  // ExpandBy's partial tiles: ISL bounds the loops and keeps one guard.
  EXPECT_EQ(nest_text("ExpandBy(OrderBy(Row(3,3), Row(4,4)).TileBy([3,3],[4,4]), [10,10])", 4),
            "for (int64_t i = 0; i < 3; ++i) {\n"
            "for (int64_t j = 0; (j <= lego_min(2, ((-4 * i) + 9))); ++j) {\n"
            "for (int64_t k = 0; (k <= lego_min(3, (((-12 * i) - (4 * j)) + 29))); ++k) {\n"
            "for (int64_t l = 0; (l <= lego_min(3, ((((-48 * i) - (16 * j)) - (4 * k)) + 117))); ++l) {\n"
            "if ((((((4 * j) + (4 * k)) + l) % 12) <= 9)) {\n");
  EXPECT_EQ(nest_text("OrderBy(GenP([4,4], antidiag)).GroupBy([(4,4)])", 2),
            "fallback: the layout is not one linear step of mixed-radix digits (a GenP piece, or a chain whose radices do not nest)");
}

// One JIT translation unit for many nests: visit_k(out) writes each visited
// logical index, in visiting order, and returns how many it visited.
struct Case {
  std::string layout;
  Plan plan;
  std::string function;
};

std::string visitor(std::size_t k, const LoopNest& nest) {
  std::string body = "extern \"C\" int64_t visit_" + std::to_string(k) + "(int64_t* out) {\n  int64_t n = 0;\n  ";
  for (const auto& h : nest.headers) body += h + " ";
  body += coordinate_declarations(nest) + "\n";
  for (std::size_t c = 0; c < nest.coordinates.size(); ++c)
    body += "  out[n * " + std::to_string(nest.coordinates.size()) + " + " + std::to_string(c) + "] = " + nest.coordinates[c] + ";\n";
  body += "  ++n;\n  " + std::string(nest.headers.size(), '}') + "\n  return n;\n}\n";
  return body;
}

TEST(LoopNest, RandomLayoutsVisitEveryIndexOnceInPhysicalOrder) {
  std::vector<Case> cases;
  std::size_t fallbacks = 0;
  // RapidCheck draws the layouts (with ExpandBy); the nests are compiled together afterwards.
  rc::check("random layouts", [&] {
    const std::string text = testing::random_layout(true);
    const LayoutAst ast = parse_layout(text);
    const Plan plan = make_plan(ast, {});
    RC_PRE(plan.has_inverse() && plan.physical_size() <= 4096);
    std::vector<std::string> names;
    for (int c = 0; c < plan.rank(); ++c) names.push_back("c" + std::to_string(c));
    LoopNestResult r = build_loop_nest(ast, {}, names);
    if (!r.fallback.empty()) {
      ++fallbacks;
      return;
    }
    RC_ASSERT(!r.nest.loops.empty() || plan.physical_size() == 1);
    cases.push_back({text, plan, visitor(cases.size(), r.nest)});
  });
  ASSERT_GE(cases.size(), 20u) << fallbacks << " layouts fell back to the flat form";
  std::string source = "#include <cstdint>\n" + sym::c_prelude(sym::Lang::C);
  for (const auto& c : cases) source += c.function;
  run::CompileOptions options;
  options.openmp = false;
  options.want_assembly = false;
  const run::CompileResult compiled = run::compile_cpp(source, options);
  ASSERT_TRUE(compiled.module) << compiled.diagnostics;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Plan& plan = cases[k].plan;
    auto* visit = reinterpret_cast<std::int64_t (*)(std::int64_t*)>(compiled.module->lookup("visit_" + std::to_string(k)));
    ASSERT_NE(visit, nullptr);
    const std::size_t rank = static_cast<std::size_t>(plan.rank());
    std::vector<std::int64_t> out(static_cast<std::size_t>(plan.physical_size()) * rank + rank, -1);
    const std::int64_t visited = visit(out.data());
    ASSERT_EQ(visited, plan.physical_size()) << cases[k].layout << "\n" << cases[k].function;
    std::vector<std::int64_t> want(rank);
    for (std::int64_t x = 0; x < plan.physical_size(); ++x) {
      plan.inv(x, want.data());
      for (std::size_t c = 0; c < rank; ++c)
        ASSERT_EQ(out[static_cast<std::size_t>(x) * rank + c], want[c])
            << cases[k].layout << ": physical position " << x << ", coordinate " << c << "\n"
            << cases[k].function;
    }
  }
}

}  // namespace
}  // namespace lego::poly
