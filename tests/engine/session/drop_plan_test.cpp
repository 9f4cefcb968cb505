// What a drop on the composer does (session/drop_plan): the issue's cases,
// and over every layout of the paper's examples and every palette entry,
// each choice offered is a layout the engine draws, or the drop is refused
// with a reason.
#include "session/drop_plan.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "layout/parse.hpp"
#include "session/layout_snapshot.hpp"

namespace lego::session {
namespace {

const std::vector<std::string> kPalette = {"Row",  "Col",    "RegP",           "antidiag",    "reverse",
                                           "skew", "morton", "swizzle(3,0,3)", "cyclic(1,4)", "GenP:user"};

LayoutAst layout(const std::string& text) { return parse_layout(text); }

// The layout draws at these sizes (what the composer's drop must keep).
void expect_draws(const LayoutAst& l, const Env& sizes, const std::string& what) {
  const LayoutSnapshot s = build_snapshot(1, print(l), [&] {
    std::string b;
    for (const auto& [k, v] : sizes) b += (b.empty() ? "" : ", ") + k + "=" + std::to_string(v);
    return b;
  }());
  EXPECT_TRUE(s.ok) << what << ": " << print(l) << ": " << s.error;
}

TEST(DropPlan, AntidiagOnARegPOfThirtySixTakesTheSquareItNeeds) {
  const LayoutAst l = layout("OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])");
  const DropPlan p = plan_replace(l, {}, 0, 0, "antidiag");
  ASSERT_FALSE(p.refused()) << p.refusal;
  EXPECT_EQ(print(p.choices.front().result), "OrderBy(GenP([6,6], antidiag)).GroupBy([(6,6)])");
  EXPECT_EQ(p.choices.size(), 1u);  // the shape it needs, not a menu
}

TEST(DropPlan, ColOnARegPKeepsItsExtents) {
  const LayoutAst l = layout("OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])");
  const DropPlan p = plan_replace(l, {}, 0, 0, "Col");
  ASSERT_FALSE(p.refused()) << p.refusal;
  EXPECT_EQ(print(p.choices.front().result), "OrderBy(Col(2,3,2,3)).GroupBy([(6,6)])");
}

TEST(DropPlan, AntidiagBesideRowSplitsItIntoTilesOfTheSameSize) {
  const LayoutAst l = layout("OrderBy(Row(8,8)).GroupBy([(8,8)])");
  const DropPlan p = plan_insert(l, {}, 0, 1, "antidiag");
  ASSERT_FALSE(p.refused()) << p.refusal;
  // Balanced and square first; on a tie the larger new tile: 2x2 tiles of 4x4 anti-diagonals.
  EXPECT_EQ(print(p.choices.front().result), "OrderBy(Row(2,2), GenP([4,4], antidiag)).GroupBy([(8,8)])");
  EXPECT_EQ(p.choices.front().label, "Row(2,2), GenP([4,4], antidiag)");
  EXPECT_GE(p.choices.size(), 2u);  // the user picks among the factorizations
  for (const DropChoice& c : p.choices) expect_draws(c.result, {}, c.label);
  // Dropped left of the piece, the new piece is the outer level.
  const DropPlan left = plan_insert(l, {}, 0, 0, "Col");
  ASSERT_FALSE(left.refused()) << left.refusal;
  EXPECT_EQ(print(left.choices.front().result).rfind("OrderBy(Col(", 0), 0u) << print(left.choices.front().result);
}

TEST(DropPlan, SymbolicExtentsAreSplitByDivision) {
  const LayoutAst l = layout("OrderBy(Row(N,N)).GroupBy([(N,N)])");
  const DropPlan p = plan_insert(l, {{"N", 16}}, 0, 1, "Row");
  ASSERT_FALSE(p.refused()) << p.refusal;
  EXPECT_EQ(print(p.choices.front().result), "OrderBy(Row(N//4,N//4), Row(4,4)).GroupBy([(N,N)])");
}

TEST(DropPlan, ADropThatCannotKeepTheLayoutValidIsRefusedWithTheReason) {
  // No square tile divides a 2x3 piece.
  const DropPlan p = plan_insert(layout("OrderBy(Row(2,3)).GroupBy([(2,3)])"), {}, 0, 1, "antidiag");
  EXPECT_TRUE(p.refused());
  EXPECT_NE(p.refusal.find("square"), std::string::npos) << p.refusal;
  // morton needs powers of two, and 36 elements have no such 2-D shape.
  const DropPlan m = plan_replace(layout("OrderBy(Row(6,6)).GroupBy([(6,6)])"), {}, 0, 0, "morton");
  EXPECT_TRUE(m.refused());
  EXPECT_FALSE(m.refusal.empty());
  // A piece of extent one cannot be split.
  EXPECT_TRUE(plan_insert(layout("OrderBy(Row(1,1)).GroupBy([(1,1)])"), {}, 0, 1, "Row").refused());
}

TEST(DropPlan, ALayoutThatIsAlreadyInvalidIsEditedAsTyped) {
  // 8x8 pieces against a 6x6 GroupBy: the user is repairing it; a drop is the plain edit.
  const LayoutAst l = layout("OrderBy(Row(8,8)).GroupBy([(6,6)])");
  const DropPlan p = plan_replace(l, {}, 0, 0, "Col");
  ASSERT_EQ(p.choices.size(), 1u);
  EXPECT_EQ(print(p.choices.front().result), "OrderBy(Col(8,8)).GroupBy([(6,6)])");
}

TEST(DropPlan, EveryChoiceOnEveryPaperLayoutDraws) {
  std::ifstream in(std::string(LEGO_PROJECTS_DIR) + "/paper-layouts.lego");
  std::stringstream text;
  text << in.rdbuf();
  const Program program = parse_program(text.str());
  const Env sizes = evaluate_program_env(program, {{"n", 8}, {"B", 2}, {"N", 8}, {"R", 2}, {"T", 4}});
  int offered = 0, refused = 0;
  std::chrono::steady_clock::duration planning{};
  for (const Definition& d : program.definitions) {
    const auto* l = std::get_if<LayoutAst>(&d.value);
    if (!l) continue;
    for (const std::string& entry : kPalette) {
      const auto started = std::chrono::steady_clock::now();
      std::vector<DropPlan> plans{plan_new_block(*l, sizes, entry)};
      for (std::size_t b = 0; b < l->chain.size(); ++b)
        for (std::size_t p = 0; p <= l->chain[b].pieces.size(); ++p) {
          plans.push_back(plan_insert(*l, sizes, b, p, entry));
          if (p < l->chain[b].pieces.size()) plans.push_back(plan_replace(*l, sizes, b, p, entry));
        }
      planning += std::chrono::steady_clock::now() - started;
      for (const DropPlan& plan : plans) {
        if (plan.refused()) {
          EXPECT_FALSE(plan.refusal.empty()) << d.name << " " << plan.action;
          ++refused;
        }
        // Every choice passed check_layout; the default one, which a drop
        // takes when the user does not pick another, is drawn in full.
        if (!plan.refused()) expect_draws(plan.choices.front().result, sizes, d.name + ": " + plan.action);
        offered += static_cast<int>(plan.choices.size());
      }
    }
  }
  std::printf("%d choices offered, %d drops refused; planning took %.0f ms in all\n", offered, refused,
              std::chrono::duration<double, std::milli>(planning).count());
  EXPECT_GT(offered, 100);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace lego::session
