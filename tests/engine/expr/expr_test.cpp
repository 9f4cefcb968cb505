#include <gtest/gtest.h>

#include "expr/compiled.hpp"
#include "expr/parser.hpp"

namespace lego {
namespace {

TEST(Expr, FloorSemanticsMatchPython) {
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_mod(-7, 2), 1);
  EXPECT_EQ(floor_div(7, -2), -4);
  EXPECT_EQ(floor_mod(7, -2), -1);
  EXPECT_EQ(evaluate(parse_expression("-7 // 2"), {}), -4);
  EXPECT_EQ(evaluate(parse_expression("(0 - 7) % 3"), {}), 2);
}

TEST(Expr, PrecedenceFollowsPython) {
  EXPECT_EQ(evaluate(parse_expression("2 + 3 * 4"), {}), 14);
  EXPECT_EQ(evaluate(parse_expression("1 << 2 + 1"), {}), 8);
  EXPECT_EQ(evaluate(parse_expression("6 & 3 ^ 1"), {}), 3);  // & binds tighter than ^
  EXPECT_EQ(evaluate(parse_expression("1 < 2 and not 3 == 4"), {}), 1);
  EXPECT_EQ(evaluate(parse_expression("max(N//B, 1) * min(a, b, 3)"), {{"N", 7}, {"B", 8}, {"a", 5}, {"b", 4}}), 3);
  EXPECT_EQ(evaluate(parse_expression("select(x > 2, isqrt(x), -1)"), {{"x", 17}}), 4);
}

TEST(Expr, PrintRoundTrips) {
  for (const char* text : {"N//B", "a - (b - c)", "(a + b)*c", "-(a*b) % 7", "max(a//b, 1)", "x ^ y & 3 << 1", "not a < b or c",
                           "select(i < n, i, n - 1)", "a*(x//a) + x % a", "2*(-3)"}) {
    const Expr e = parse_expression(text);
    const Expr back = parse_expression(to_string(e));
    EXPECT_TRUE(equal(e, back)) << text << " printed as " << to_string(e);
  }
}

TEST(Expr, UnboundSymbolNamesItsSpan) {
  try {
    evaluate(parse_expression("R*T + q"), {{"R", 2}, {"T", 3}});
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_EQ(e.diagnostic().span.begin, 6u);
    EXPECT_NE(e.diagnostic().message.find("'q'"), std::string::npos);
  }
}

TEST(Expr, DivisionByZeroAndOverflowAreErrors) {
  EXPECT_THROW(evaluate(parse_expression("4 // (n - n)"), {{"n", 3}}), LegoError);
  EXPECT_THROW(evaluate(parse_expression("9223372036854775807 + 1"), {}), LegoError);
  EXPECT_THROW(evaluate(parse_expression("1 << 70"), {}), LegoError);
}

// A long operator chain is a tall tree, and every walk over it recurses:
// it is refused where it is written instead of overflowing the stack.
TEST(Expr, ATreeTallerThanTheLimitIsAnErrorAtItsOperator) {
  auto chain = [](int terms) {
    std::string s = "1";
    for (int k = 1; k < terms; ++k) s += "+1";
    return s;
  };
  EXPECT_EQ(evaluate(parse_expression(chain(kMaxExprHeight)), {}), kMaxExprHeight);
  try {
    parse_expression(chain(60000));
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_EQ(e.diagnostic().span.begin, 0u);
    EXPECT_NE(e.diagnostic().message.find("nested more than"), std::string::npos);
  }
}

TEST(Expr, ParseErrorsSayWhatWasExpected) {
  try {
    parse_expression("a + * b");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_EQ(e.diagnostic().span.begin, 4u);
    EXPECT_EQ(e.diagnostic().message, "expected an expression, found '*'");
  }
  EXPECT_THROW(parse_expression("a / b"), LegoError);
  EXPECT_THROW(parse_expression(std::string(500, '(') + "1" + std::string(500, ')')), LegoError);
}

TEST(Expr, SubstituteFoldsConstants) {
  const Expr e = substitute(parse_expression("N//B * i + 2*3"), {{"N", 64}, {"B", 8}});
  EXPECT_EQ(to_string(e), "8*i + 6");
}

TEST(Expr, CompiledMatchesTreeEvaluation) {
  const Expr e = parse_expression("(i*7 + j) % 5 - max(i, j) // 2 + select(i < j, i ^ j, i & j) + isqrt(i*j)");
  const CompiledExpr c(e, {"i", "j"});
  for (std::int64_t i = -5; i < 20; ++i)
    for (std::int64_t j = -3; j < 20; ++j) {
      const std::int64_t vars[2] = {i, j};
      if (i * j < 0) continue;  // isqrt of a negative is an error in both
      EXPECT_EQ(c(vars), evaluate(e, {{"i", i}, {"j", j}})) << i << "," << j;
    }
}

TEST(Diagnostic, FormatsLineColumnAndCaret) {
  const std::string src = "let a = 1\nlet b = a +* 2";
  const Diagnostic d{Span{21, 22}, "expected an expression, found '*'"};
  EXPECT_EQ(format_diagnostic(src, d, "f.lego"),
            "f.lego:2:12: error: expected an expression, found '*'\n  let b = a +* 2\n             ^\n");
}

}  // namespace
// An error's text reaches a terminal: control bytes, C1 controls and bytes
// that are not UTF-8 (a Latin-1 file name) are escaped; UTF-8 stays as it is.
TEST(Printable, EscapesWhatATerminalWouldNotPrintAndKeepsUtf8) {
  EXPECT_EQ(printable("a\x1b[2Jb\tc\n"), "a\\x1b[2Jb\tc\n");
  EXPECT_EQ(printable("\xc2\x9b"), "\\x9b");                                     // C1 CSI in UTF-8
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");  // é and a check mark
  EXPECT_EQ(printable("caf\xe9.json"), "caf\\xe9.json");                         // Latin-1 é
  EXPECT_EQ(printable("\xc3"), "\\xc3");                                         // a sequence cut short
  // The attack review of issue 61: a right-to-left override reordered the rest of a kernel's line.
  EXPECT_EQ(printable("ok \xe2\x80\xae"
                      "1.0 ms"),
            "ok \\u202e1.0 ms");
  EXPECT_EQ(printable("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");
  EXPECT_EQ(printable("\xe2\x80\x94"), "\xe2\x80\x94");  // an em dash stays
  EXPECT_EQ(std::string(LegoError("x\xff").what()), "x\\xff");
}

}  // namespace lego
