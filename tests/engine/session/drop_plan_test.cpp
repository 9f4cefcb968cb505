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

const std::vector<std::string> kPalette = {"Row",         "Col",       "RegP",          "antidiag",
                                           "reverse",     "skew",      "morton",        "swizzle(3,0,3)",
                                           "cyclic(1,4)", "GenP:user", kTileLevelEntry, kExpandEntry};

// Every ( has its ) and every [ its ], in order.
bool balanced(const std::string& text) {
  std::string open;
  for (char c : text) {
    if (c == '(' || c == '[') open.push_back(c);
    if (c == ')' || c == ']') {
      if (open.empty() || open.back() != (c == ')' ? '(' : '[')) return false;
      open.pop_back();
    }
  }
  return open.empty();
}

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

// Issue 30: "TileBy level" used to add a level of ones (TileBy([n,n],[1,1]),
// nothing visible) wherever it was dropped. On the closing block it splits
// the innermost level at the same size, the balanced splits first.
TEST(DropPlan, TileByLevelSplitsTheClosingBlockAtTheSameSize) {
  const LayoutAst l = layout("OrderBy(Row(8,8)).GroupBy([(8,8)])");
  const DropPlan p = plan_drop(l, {}, {DropSite::Closing}, kTileLevelEntry);
  ASSERT_FALSE(p.refused()) << p.refusal;
  EXPECT_EQ(print(p.choices.front().result), "OrderBy(Row(8,8)).TileBy([2,2],[4,4])");
  EXPECT_EQ(p.choices.front().label, "TileBy([2,2],[4,4])");
  EXPECT_NE(p.action.find("GroupBy([(8,8)])"), std::string::npos) << p.action;
  EXPECT_GE(p.choices.size(), 2u);
  for (const DropChoice& c : p.choices) {
    EXPECT_EQ(c.label.find("[1,1]"), std::string::npos) << c.label;
    expect_draws(c.result, {}, c.label);
  }
  // A TileBy gets a third level; symbolic extents are divided.
  const DropPlan t = plan_tile_level(layout("OrderBy(Row(n//4,n//4), Row(4,4)).TileBy([n//4,n//4],[4,4])"), {{"n", 16}});
  ASSERT_FALSE(t.refused()) << t.refusal;
  EXPECT_EQ(t.choices.front().label, "TileBy([n//4,n//4],[2,2],[2,2])");
  const DropPlan s = plan_tile_level(layout("OrderBy(Row(n,n)).GroupBy([(n,n)])"), {{"n", 8}});
  ASSERT_FALSE(s.refused()) << s.refusal;
  EXPECT_EQ(s.choices.front().label, "TileBy([n//4,n//4],[4,4])");
}

// ExpandBy on the closing block used to read "TileBy([n,n]), [n,n])".
TEST(DropPlan, ExpandByWrapsAndUnwrapsWithBalancedText) {
  const LayoutAst l = layout("OrderBy(Row(n//2,n//2), Row(2,2)).TileBy([n//2,n//2],[2,2])");
  const DropPlan p = plan_drop(l, {{"n", 8}}, {DropSite::Closing}, kExpandEntry);
  ASSERT_EQ(p.choices.size(), 1u) << p.refusal;
  EXPECT_EQ(p.choices.front().label, "TileBy([n//2,n//2],[2,2]) in ExpandBy(.., [n//2*2,n//2*2])");
  EXPECT_TRUE(balanced(p.choices.front().label));
  expect_draws(p.choices.front().result, {{"n", 8}}, p.action);
  const DropPlan back = plan_expand(p.choices.front().result, {{"n", 8}});
  ASSERT_EQ(back.choices.size(), 1u) << back.refusal;
  EXPECT_EQ(print(back.choices.front().result), print(l));
  EXPECT_EQ(closing_text(p.choices.front().result), p.choices.front().label);
}

// A structural entry on an OrderBy, a piece on the closing block: refused,
// saying where it goes. Below everything: where the entry belongs.
TEST(DropPlan, EntriesOffTheirBlockAreRefusedOrTakenWhereTheyBelong) {
  const LayoutAst l = layout("OrderBy(Row(8,8)).GroupBy([(8,8)])");
  const DropPlan on_piece = plan_drop(l, {}, {DropSite::OnPiece, 0, 0}, kTileLevelEntry);
  EXPECT_TRUE(on_piece.refused());
  EXPECT_NE(on_piece.refusal.find("closing block"), std::string::npos) << on_piece.refusal;
  const DropPlan row_on_closing = plan_drop(l, {}, {DropSite::Closing}, "Row");
  EXPECT_TRUE(row_on_closing.refused());
  EXPECT_NE(row_on_closing.refusal.find("OrderBy"), std::string::npos) << row_on_closing.refusal;
  EXPECT_EQ(plan_drop(l, {}, {DropSite::Below}, "Col").action, plan_new_block(l, {}, "Col").action);
  EXPECT_EQ(plan_drop(l, {}, {DropSite::Below}, kExpandEntry).action, plan_expand(l, {}).action);
  // A GroupBy of several groups has no TileBy form.
  EXPECT_TRUE(plan_tile_level(layout("OrderBy(Row(2,2), Row(4,4)).GroupBy([(2,2),(4,4)])"), {}).refused());
}

// The matrix: every palette entry (pieces and structural) over every site of
// every paper layout gives choices that draw, each labelled in balanced text
// and each a change, or a refusal with its reason.
TEST(DropPlan, EveryChoiceOnEveryPaperLayoutDraws) {
  std::ifstream in(std::string(LEGO_PROJECTS_DIR) + "/paper-layouts.lego");
  std::stringstream text;
  text << in.rdbuf();
  const Program program = parse_program(text.str());
  const Env sizes = evaluate_program_env(program, {{"n", 8}, {"B", 2}, {"N", 8}, {"R", 2}, {"T", 4}});
  int offered = 0, refused = 0, structural = 0;
  std::chrono::steady_clock::duration planning{};
  for (const Definition& d : program.definitions) {
    const auto* l = std::get_if<LayoutAst>(&d.value);
    if (!l) continue;
    std::vector<DropSite> sites{{DropSite::NewBlock}, {DropSite::Closing}, {DropSite::Below}};
    for (std::size_t b = 0; b < l->chain.size(); ++b)
      for (std::size_t p = 0; p <= l->chain[b].pieces.size(); ++p) {
        sites.push_back({DropSite::InBlock, b, p});
        if (p < l->chain[b].pieces.size()) sites.push_back({DropSite::OnPiece, b, p});
      }
    for (const std::string& entry : kPalette) {
      const auto started = std::chrono::steady_clock::now();
      std::vector<DropPlan> plans;
      for (const DropSite& site : sites) plans.push_back(plan_drop(*l, sizes, site, entry));
      planning += std::chrono::steady_clock::now() - started;
      for (const DropPlan& plan : plans) {
        const std::string what = d.name + " " + entry + ": " + plan.action;
        if (plan.refused()) {
          EXPECT_FALSE(plan.refusal.empty()) << what;
          ++refused;
          continue;
        }
        EXPECT_FALSE(plan.action.empty()) << what;
        for (const DropChoice& c : plan.choices) {
          EXPECT_TRUE(!c.label.empty() && balanced(c.label)) << what << ": " << c.label;
          if (is_structural(entry)) {
            EXPECT_NE(print(c.result), print(*l)) << what << ": the drop changes nothing";
          }
        }
        // Every choice passed check_layout; the default one, which a drop
        // takes when the user does not pick another, is drawn in full.
        expect_draws(plan.choices.front().result, sizes, what);
        offered += static_cast<int>(plan.choices.size());
        if (is_structural(entry)) ++structural;
      }
    }
  }
  std::printf("%d choices offered (%d structural drops), %d drops refused; planning took %.0f ms in all\n", offered, structural, refused,
              std::chrono::duration<double, std::milli>(planning).count());
  EXPECT_GT(offered, 100);
  EXPECT_GT(structural, 10);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace lego::session
