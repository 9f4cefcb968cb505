#include "expr/parser.hpp"

namespace lego {

TokenCursor::TokenCursor(std::string_view source) : source_(source), tokens_(tokenize(source)) {}

const Token& TokenCursor::peek(std::size_t ahead) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }

Token TokenCursor::next() {
  Token t = peek();
  if (pos_ < tokens_.size() - 1) ++pos_;
  last_ = t.span;
  return t;
}

TokenCursor::DepthGuard::DepthGuard(TokenCursor& c) : c_(c) {
  constexpr int kMaxDepth = 200;
  if (++c_.depth_ > kMaxDepth) {
    --c_.depth_;
    throw LegoError(c.peek().span, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  }
}

bool TokenCursor::accept(Tok kind) {
  if (!at(kind)) return false;
  next();
  return true;
}

std::string describe(const Token& t) {
  if (t.kind == Tok::End) return "end of input";
  if (t.kind == Tok::Int || t.kind == Tok::Ident) return std::string(token_name(t.kind)) + " '" + std::string(t.text) + "'";
  return token_name(t.kind);
}

void TokenCursor::fail_expected(std::string_view expected) const {
  throw LegoError(peek().span, "expected " + std::string(expected) + ", found " + describe(peek()));
}

Token TokenCursor::expect(Tok kind, std::string_view context) {
  if (!at(kind)) {
    std::string what = token_name(kind);
    if (!context.empty()) what += " " + std::string(context);
    fail_expected(what);
  }
  return next();
}

namespace {

Expr binary(Op op, Expr a, Expr b) {
  const Span s = Span::join(a->span, b->span);
  return make(op, {std::move(a), std::move(b)}, s);
}

Expr parse_call(TokenCursor& c, const Token& name) {
  struct Fn {
    std::string_view name;
    Op op;
    std::size_t arity;
  };
  static constexpr Fn fns[] = {{"min", Op::Min, 2}, {"max", Op::Max, 2}, {"select", Op::Select, 3}, {"isqrt", Op::Isqrt, 1}};
  const Fn* fn = nullptr;
  for (const auto& f : fns)
    if (f.name == name.text) fn = &f;
  if (!fn) throw LegoError(name.span, "unknown function '" + std::string(name.text) + "'; expressions may call min, max, select, isqrt");
  c.expect(Tok::LParen, "after function name");
  std::vector<Expr> args;
  if (!c.at(Tok::RParen)) {
    do args.push_back(parse_expression(c));
    while (c.accept(Tok::Comma));
  }
  const Token close = c.expect(Tok::RParen, "to close the argument list");
  const Span span{name.span.begin, close.span.end};
  // min/max accept several arguments, folded left.
  if ((fn->op == Op::Min || fn->op == Op::Max) && args.size() >= 2) {
    Expr acc = args[0];
    for (std::size_t i = 1; i < args.size(); ++i) acc = make(fn->op, {acc, args[i]}, span);
    return acc;
  }
  if (args.size() != fn->arity)
    throw LegoError(span,
                    std::string(fn->name) + " takes " + std::to_string(fn->arity) + " argument(s), got " + std::to_string(args.size()));
  return make(fn->op, std::move(args), span);
}

Expr parse_atom(TokenCursor& c) {
  const Token& t = c.peek();
  if (t.kind == Tok::Int) {
    c.next();
    return constant(t.value, t.span);
  }
  if (t.kind == Tok::Ident) {
    if (t.text == "and" || t.text == "or" || t.text == "not" || t.text == "lambda" || t.text == "if" || t.text == "else")
      c.fail_expected("an expression");
    Token name = c.next();
    if (name.text == "math" && c.at(Tok::Dot) && c.peek(1).kind == Tok::Ident && c.peek(1).text == "isqrt") {
      c.next();
      name = c.next();  // Python's math.isqrt is our isqrt
    }
    if (c.at(Tok::LParen)) return parse_call(c, name);
    return symbol(std::string(name.text), name.span);
  }
  if (t.kind == Tok::LParen) {
    c.next();
    Expr e = parse_expression(c);
    c.expect(Tok::RParen, "to close '('");
    return e;
  }
  c.fail_expected("an expression");
}

Expr parse_unary(TokenCursor& c) {
  TokenCursor::DepthGuard guard(c);
  if (c.at(Tok::Minus) || c.at(Tok::Tilde) || c.at(Tok::Plus)) {
    const Token op = c.next();
    // A negative literal stays a literal so printing round-trips.
    if (op.kind == Tok::Minus && c.at(Tok::Int) && c.peek(1).kind != Tok::LParen) {
      const Token lit = c.next();
      return constant(-lit.value, Span{op.span.begin, lit.span.end});
    }
    Expr a = parse_unary(c);
    if (op.kind == Tok::Plus) return a;
    return make(op.kind == Tok::Minus ? Op::Neg : Op::BitNot, {a}, Span::join(op.span, a->span));
  }
  return parse_atom(c);
}

struct BinOp {
  Tok tok;
  Op op;
};

Expr parse_binary_level(TokenCursor& c, std::initializer_list<BinOp> ops, Expr (*sub)(TokenCursor&)) {
  Expr lhs = sub(c);
  for (;;) {
    const BinOp* hit = nullptr;
    for (const auto& o : ops)
      if (c.at(o.tok)) hit = &o;
    if (!hit) return lhs;
    c.next();
    lhs = binary(hit->op, lhs, sub(c));
  }
}

Expr parse_mul(TokenCursor& c) {
  return parse_binary_level(c, {{Tok::Star, Op::Mul}, {Tok::SlashSlash, Op::FloorDiv}, {Tok::Percent, Op::Mod}}, parse_unary);
}
Expr parse_add(TokenCursor& c) { return parse_binary_level(c, {{Tok::Plus, Op::Add}, {Tok::Minus, Op::Sub}}, parse_mul); }
Expr parse_shift(TokenCursor& c) { return parse_binary_level(c, {{Tok::Shl, Op::Shl}, {Tok::Shr, Op::Shr}}, parse_add); }
Expr parse_bitand(TokenCursor& c) { return parse_binary_level(c, {{Tok::Amp, Op::BitAnd}}, parse_shift); }
Expr parse_bitxor(TokenCursor& c) { return parse_binary_level(c, {{Tok::Caret, Op::BitXor}}, parse_bitand); }
Expr parse_bitor(TokenCursor& c) { return parse_binary_level(c, {{Tok::Pipe, Op::BitOr}}, parse_bitxor); }

Expr parse_compare(TokenCursor& c) {
  Expr lhs = parse_bitor(c);
  static constexpr BinOp cmps[] = {{Tok::Lt, Op::Lt}, {Tok::Le, Op::Le},   {Tok::Gt, Op::Gt},
                                   {Tok::Ge, Op::Ge}, {Tok::EqEq, Op::Eq}, {Tok::NotEq, Op::Ne}};
  for (const auto& o : cmps) {
    if (c.at(o.tok)) {
      c.next();
      Expr rhs = parse_bitor(c);
      for (const auto& o2 : cmps)
        if (c.at(o2.tok)) throw LegoError(c.peek().span, "chained comparisons are not supported; combine them with 'and'");
      return binary(o.op, lhs, rhs);
    }
  }
  return lhs;
}

Expr parse_not(TokenCursor& c) {
  TokenCursor::DepthGuard guard(c);
  if (c.at_ident("not")) {
    const Token t = c.next();
    Expr a = parse_not(c);
    return make(Op::Not, {a}, Span::join(t.span, a->span));
  }
  return parse_compare(c);
}

Expr parse_and(TokenCursor& c) {
  Expr lhs = parse_not(c);
  while (c.at_ident("and")) {
    c.next();
    lhs = binary(Op::And, lhs, parse_not(c));
  }
  return lhs;
}

Expr parse_or(TokenCursor& c) {
  Expr lhs = parse_and(c);
  while (c.at_ident("or")) {
    c.next();
    lhs = binary(Op::Or, lhs, parse_and(c));
  }
  return lhs;
}

}  // namespace

// Python's conditional expression  a if c else b  is select(c, a, b).
Expr parse_expression(TokenCursor& c) {
  TokenCursor::DepthGuard guard(c);
  Expr value = parse_or(c);
  if (!c.at_ident("if")) return value;
  c.next();
  Expr cond = parse_or(c);
  if (!c.at_ident("else")) c.fail_expected("'else' in a conditional expression (a if c else b)");
  c.next();
  Expr other = parse_expression(c);
  return make(Op::Select, {cond, value, other}, Span::join(value->span, other->span));
}

Expr parse_expression(std::string_view text) {
  TokenCursor c(text);
  Expr e = parse_expression(c);
  if (!c.at(Tok::End)) c.fail_expected("an operator or end of input");
  return e;
}

}  // namespace lego
