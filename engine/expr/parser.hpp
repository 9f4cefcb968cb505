// Recursive-descent reading of integer expressions (Python precedence), over
// a token cursor that the layout-language parser shares.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.hpp"
#include "expr/lexer.hpp"

namespace lego {

class TokenCursor {
 public:
  explicit TokenCursor(std::string_view source);

  const Token& peek(std::size_t ahead = 0) const;
  Token next();
  bool at(Tok kind) const { return peek().kind == kind; }
  bool at_ident(std::string_view name) const { return at(Tok::Ident) && peek().text == name; }
  bool accept(Tok kind);
  Token expect(Tok kind, std::string_view context);
  [[noreturn]] void fail_expected(std::string_view expected) const;
  std::string_view source() const { return source_; }
  // Backtracking for the few places where one token of lookahead is not enough.
  std::size_t mark() const { return pos_; }
  void reset(std::size_t mark) { pos_ = mark; }
  Span last_span() const { return last_; }

  // Bounds recursion so hostile input gets a diagnostic, not a stack overflow.
  class DepthGuard {
   public:
    explicit DepthGuard(TokenCursor& c);
    ~DepthGuard() { --c_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    TokenCursor& c_;
  };

 private:
  std::string_view source_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  Span last_;
  int depth_ = 0;
};

// expr := or-expr with Python's operators: or and not, comparisons, | ^ &,
// << >>, + -, * // %, unary - ~, calls min max select isqrt.
Expr parse_expression(TokenCursor& cursor);

// Whole text must be one expression.
Expr parse_expression(std::string_view text);

std::string describe(const Token& t);

}  // namespace lego
