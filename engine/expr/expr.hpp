// Integer expressions: extents ("N//B", "max(a//b,1)"), user GenP bodies and,
// later, derived index expressions. Immutable trees of shared nodes; floor
// division and floor modulo as in Python.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "expr/diagnostic.hpp"

namespace lego {

enum class Op {
  Const,
  Sym,
  Add,
  Sub,
  Mul,
  FloorDiv,
  Mod,
  Min,
  Max,
  Neg,
  BitNot,
  Not,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
  Select,
  Isqrt,
};

struct Node;
using Expr = std::shared_ptr<const Node>;

struct Node {
  Op op;
  std::int64_t value = 0;  // Const
  std::string name;        // Sym
  std::vector<Expr> args;
  Span span;       // where it was written, if parsed
  int height = 1;  // the longest path to a leaf, counting this node
};

// Every walk over an expression recurses, so a tree is at most this tall
// (1+1+...+1 with 60000 terms once overflowed the stack of every tool);
// make() refuses a taller one with an error at the operator.
constexpr int kMaxExprHeight = 1000;

Expr constant(std::int64_t v, Span span = {});
Expr symbol(std::string name, Span span = {});
Expr make(Op op, std::vector<Expr> args, Span span = {});

inline bool is_const(const Expr& e) { return e->op == Op::Const; }

using Env = std::map<std::string, std::int64_t, std::less<>>;

// Evaluates with floor semantics; throws LegoError (with the span of the
// offending node) on an unbound symbol, division by zero, or overflow.
std::int64_t evaluate(const Expr& e, const Env& env);

// Replaces bound symbols by constants and folds constant subtrees.
Expr substitute(const Expr& e, const Env& env);

void collect_symbols(const Expr& e, std::set<std::string>& out);

// Python-compatible text with minimal parentheses; the layout language reads
// it back to an equal tree.
std::string to_string(const Expr& e);

// Structural equality (ignores spans).
bool equal(const Expr& a, const Expr& b);

// Python floor division/modulo and exact integer square root.
std::int64_t floor_div(std::int64_t a, std::int64_t b);
std::int64_t floor_mod(std::int64_t a, std::int64_t b);
std::int64_t isqrt(std::int64_t v);

}  // namespace lego
