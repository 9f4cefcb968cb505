#include "layout/parse.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "layout/make_plan.hpp"

namespace lego {
namespace {

const char* const kPaperLayouts[] = {
    "OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])",
    "OrderBy(RegP([2,2],[1,0]), GenP([3,3], antidiag)).OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])",
    "OrderBy(GenP([n,n], antidiag)).TileBy([n,n])",
    "OrderBy(Row(R*T,R*T)).GroupBy([(R,R),(T,T)])",
    "OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3,[B]*3)",
    "OrderBy(Row(N,N,N)).TileBy([N//B]*3,[B]*3)",
    "OrderBy(Col(max(num_tile_m//GM,1),1), Col(min(num_tile_m,GM),num_tile_n)).TileBy([num_tile_m, num_tile_n])",
    "OrderBy(GenP([8,8], swizzle(3,0,3))).GroupBy([(8,8)])",
    "OrderBy(GenP([n], lambda i: n - 1 - i, lambda x: (n - 1 - x,))).GroupBy([(n,)])",
    "OrderBy(GenP([4,4], apply=lambda i, j: j*4 + i, inv=lambda x: (x % 4, x // 4))).GroupBy([(4,4)])",
    "ExpandBy(OrderBy(Row(3,3), Row(4,4)).TileBy([3,3],[4,4]), [10,10])",
    "OrderBy(GenP([4,4], lambda i, j: j)).GroupBy([(4,4)])",
};

TEST(Parse, PrintParseRoundTripOnPaperLayouts) {
  for (const char* text : kPaperLayouts) {
    SCOPED_TRACE(text);
    const LayoutAst a = parse_layout(text);
    const std::string printed = print(a);
    const LayoutAst b = parse_layout(printed);
    EXPECT_TRUE(equal(a, b)) << printed;
    EXPECT_EQ(print(b), printed);  // the printer is canonical: a fixed point
  }
}

TEST(Parse, CanonicalFormNormalizesSpellings) {
  EXPECT_EQ(print(parse_layout("OrderBy( Row([6, 6]) ).GroupBy([ [6,6] ])")), "OrderBy(Row(6,6)).GroupBy([(6,6)])");
  EXPECT_EQ(print(parse_layout("OrderBy(Row(8)).GroupBy([(8,)])")), "OrderBy(Row(8)).GroupBy([(8,)])");
  EXPECT_EQ(print(parse_layout("OrderBy(Row(B,B)).TileBy([B]*2)")), "OrderBy(Row(B,B)).TileBy([B,B])");
}

struct BadInput {
  const char* text;
  int line, column;
  const char* message_part;
};

TEST(Parse, MalformedInputGetsLineColumnAndExpectation) {
  const BadInput cases[] = {
      {"OrderBy(Row(4,4)", 1, 17, "expected ')' to close OrderBy"},
      {"OrderBy(Row(4,4))", 1, 18, "a chain ends with GroupBy or TileBy, e.g. .GroupBy([(4,4)])"},
      {"OrderBy(Rows(4,4)).GroupBy([(4,4)])", 1, 9, "unknown piece 'Rows'"},
      {"OrderBy(Row(4,4)).GroupBy((4,4))", 1, 27, "expected '[' to open GroupBy's list"},
      {"OrderBy(RegP([2,3],[1,x])).GroupBy([(2,3)])", 1, 23, "permutation entry must be an integer"},
      {"OrderBy(Row(4,4)).\nTileBy([4,4]],[2])", 2, 13, "expected ')' to close TileBy"},
      {"OrderBy(Row(4,4)).GroupBy([(4,4)]) extra", 1, 36, "expected end of input"},
      {"OrderBy(GenP([4,4], 7)).GroupBy([(4,4)])", 1, 21, "a GenP function"},
      {"OrderBy(Row(4,4)).GroupBy([(4,4)])$", 1, 35, "unexpected character '$'"},
      {"OrderBy(Row(4 / 2,4)).GroupBy([(4,4)])", 1, 15, "use '//'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parse_layout(c.text);
      ADD_FAILURE() << "accepted";
    } catch (const LegoError& e) {
      const LineColumn lc = line_column(c.text, e.diagnostic().span.begin);
      EXPECT_EQ(lc.line, c.line);
      EXPECT_EQ(lc.column, c.column);
      EXPECT_NE(e.diagnostic().message.find(c.message_part), std::string::npos) << e.diagnostic().message;
      EXPECT_NE(format_diagnostic(c.text, e.diagnostic()).find("^"), std::string::npos);
    }
  }
}

TEST(Bind, SemanticErrorsPointAtTheOffendingPart) {
  struct Case {
    const char* text;
    const char* at;  // the text the span must start with
    const char* message_part;
  };
  const Case cases[] = {
      {"OrderBy(Row(4,4)).GroupBy([(4,5)])", "OrderBy(Row(4,4))", "16 elements"},
      {"OrderBy(RegP([2,3],[1,1])).GroupBy([(2,3)])", "[1,1]", "entry 1 repeats"},
      {"OrderBy(RegP([2,3],[0,2])).GroupBy([(2,3)])", "[0,2]", "out of range"},
      {"OrderBy(RegP([2,3],[0])).GroupBy([(2,3)])", "[0]", "2 dimensions"},
      {"OrderBy(Row(n,4)).GroupBy([(n,4)])", "n,4)).", "unbound symbol 'n'"},
      {"OrderBy(Row(4,0)).GroupBy([(4,0)])", "0)).", "must be at least 1"},
      {"OrderBy(Row(2,2), Row(3)).TileBy([2,2],[3,3])", "Row(3)", "same 2 dimensions"},
      {"OrderBy(Row(4,4)).TileBy([2,2],[2])", "2])", "every level must have 2"},
      {"ExpandBy(OrderBy(Row(4,4)).GroupBy([(4,4)]), [5,4])", "5,4]", "exceeds the tiled extent"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      make_plan(parse_layout(c.text), {});
      ADD_FAILURE() << "accepted";
    } catch (const LegoError& e) {
      const std::string_view text(c.text);
      ASSERT_TRUE(e.diagnostic().span.known()) << e.diagnostic().message;
      EXPECT_EQ(text.substr(e.diagnostic().span.begin).substr(0, std::strlen(c.at)), c.at);
      EXPECT_NE(e.diagnostic().message.find(c.message_part), std::string::npos) << e.diagnostic().message;
    }
  }
}

TEST(Program, LetWhereAndSelection) {
  const char* text =
      "# bricks from the paper\n"
      "let B = 2; let N = 8\n"
      "where N % B == 0\n"
      "let Bricks = OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3, [B]*3);\n"
      "let Rows = OrderBy(Row(N,N,N)).TileBy([N//B]*3, [B]*3)\n";
  const Program p = parse_program(text);
  EXPECT_EQ(p.definitions.size(), 4u);
  const Env env = evaluate_program_env(p, {});
  EXPECT_EQ(env.at("N"), 8);
  EXPECT_EQ(make_plan(select_layout(p, "Bricks"), env).apply_checked({1, 0, 0, 1, 1, 1}), 8 * 16 + 7);
  EXPECT_EQ(make_plan(select_layout(p, ""), env).shape(), (std::vector<std::int64_t>{4, 4, 4, 2, 2, 2}));
  // A binding from the command line overrides the file's default...
  EXPECT_EQ(evaluate_program_env(p, {{"N", 12}}).at("N"), 12);
  // ...and the constraint is checked against it.
  try {
    evaluate_program_env(p, {{"N", 7}});
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_EQ(line_column(text, e.diagnostic().span.begin).line, 3);
  }
}

TEST(Program, LayoutsCanBeReusedByName) {
  const Program p = parse_program("let T = OrderBy(Row(3,3), Row(4,4)).TileBy([3,3],[4,4]); let E = ExpandBy(T, [10,10])");
  const Plan plan = make_plan(select_layout(p, "E"), {});
  EXPECT_EQ(plan.physical_size(), 100);
}

TEST(Program, RedefinitionIsAnError) {
  EXPECT_THROW(parse_program("let a = 1; let a = 2"), LegoError);
  EXPECT_THROW(select_layout(parse_program("let a = 1"), ""), LegoError);
}

}  // namespace
}  // namespace lego
