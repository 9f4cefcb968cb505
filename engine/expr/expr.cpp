#include "expr/expr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lego {

Expr constant(std::int64_t v, Span span) { return std::make_shared<const Node>(Node{Op::Const, v, {}, {}, span}); }
Expr symbol(std::string name, Span span) { return std::make_shared<const Node>(Node{Op::Sym, 0, std::move(name), {}, span}); }
Expr make(Op op, std::vector<Expr> args, Span span) {
  int height = 1;
  for (const auto& a : args) height = std::max(height, a->height + 1);
  if (height > kMaxExprHeight)
    throw LegoError(span, "this expression is nested more than " + std::to_string(kMaxExprHeight) +
                              " operations deep; split it into shorter definitions (let)");
  return std::make_shared<const Node>(Node{op, 0, {}, std::move(args), span, height});
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
std::int64_t isqrt(std::int64_t v) {
  if (v <= 0) return 0;
  auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(v)));
  while (r > 0 && r > v / r) --r;  // r*r > v without overflow
  while ((r + 1) <= v / (r + 1)) ++r;
  return r;
}

namespace {

[[noreturn]] void overflow(const Node& n) {
  throw LegoError(n.span, "integer overflow while evaluating '" + to_string(std::make_shared<const Node>(n)) + "'");
}

std::int64_t apply_op(const Node& n, const std::vector<std::int64_t>& a) {
  std::int64_t r = 0;
  switch (n.op) {
    case Op::Add:
      if (__builtin_add_overflow(a[0], a[1], &r)) overflow(n);
      return r;
    case Op::Sub:
      if (__builtin_sub_overflow(a[0], a[1], &r)) overflow(n);
      return r;
    case Op::Mul:
      if (__builtin_mul_overflow(a[0], a[1], &r)) overflow(n);
      return r;
    case Op::FloorDiv:
    case Op::Mod:
      if (a[1] == 0) throw LegoError(n.span, "division by zero in '" + to_string(std::make_shared<const Node>(n)) + "'");
      if (a[0] == std::numeric_limits<std::int64_t>::min() && a[1] == -1) overflow(n);
      return n.op == Op::FloorDiv ? floor_div(a[0], a[1]) : floor_mod(a[0], a[1]);
    case Op::Min:
      return std::min(a[0], a[1]);
    case Op::Max:
      return std::max(a[0], a[1]);
    case Op::Neg:
      if (a[0] == std::numeric_limits<std::int64_t>::min()) overflow(n);
      return -a[0];
    case Op::BitNot:
      return ~a[0];
    case Op::Not:
      return !a[0];
    case Op::Lt:
      return a[0] < a[1];
    case Op::Le:
      return a[0] <= a[1];
    case Op::Gt:
      return a[0] > a[1];
    case Op::Ge:
      return a[0] >= a[1];
    case Op::Eq:
      return a[0] == a[1];
    case Op::Ne:
      return a[0] != a[1];
    case Op::And:
      return a[0] && a[1];
    case Op::Or:
      return a[0] || a[1];
    case Op::BitAnd:
      return a[0] & a[1];
    case Op::BitOr:
      return a[0] | a[1];
    case Op::BitXor:
      return a[0] ^ a[1];
    case Op::Shl:
      if (a[1] < 0 || a[1] > 62) throw LegoError(n.span, "shift amount " + std::to_string(a[1]) + " is outside [0, 62]");
      if (a[0] < 0 || a[0] > (std::numeric_limits<std::int64_t>::max() >> a[1])) overflow(n);
      return a[0] << a[1];
    case Op::Shr:
      if (a[1] < 0 || a[1] > 63) throw LegoError(n.span, "shift amount " + std::to_string(a[1]) + " is outside [0, 63]");
      return a[0] >> a[1];
    case Op::Select:
      return a[0] ? a[1] : a[2];
    case Op::Isqrt:
      if (a[0] < 0) throw LegoError(n.span, "isqrt of a negative value (" + std::to_string(a[0]) + ")");
      return isqrt(a[0]);
    case Op::Const:
    case Op::Sym:
      break;
  }
  return 0;
}

}  // namespace

std::int64_t evaluate(const Expr& e, const Env& env) {
  switch (e->op) {
    case Op::Const:
      return e->value;
    case Op::Sym: {
      auto it = env.find(e->name);
      if (it == env.end()) throw LegoError(e->span, "unbound symbol '" + e->name + "': give it a value (e.g. --bind " + e->name + "=8)");
      return it->second;
    }
    case Op::Select: {  // lazy, so a guarded branch may divide by zero safely
      return evaluate(e->args[0], env) ? evaluate(e->args[1], env) : evaluate(e->args[2], env);
    }
    default:
      break;
  }
  std::vector<std::int64_t> a;
  a.reserve(e->args.size());
  for (const auto& arg : e->args) a.push_back(evaluate(arg, env));
  return apply_op(*e, a);
}

Expr substitute(const Expr& e, const Env& env) {
  if (e->op == Op::Const) return e;
  if (e->op == Op::Sym) {
    auto it = env.find(e->name);
    return it == env.end() ? e : constant(it->second, e->span);
  }
  std::vector<Expr> args;
  bool all_const = true;
  for (const auto& a : e->args) {
    args.push_back(substitute(a, env));
    all_const = all_const && is_const(args.back());
  }
  auto folded = make(e->op, std::move(args), e->span);
  if (all_const) return constant(evaluate(folded, {}), e->span);
  return folded;
}

void collect_symbols(const Expr& e, std::set<std::string>& out) {
  if (e->op == Op::Sym) out.insert(e->name);
  for (const auto& a : e->args) collect_symbols(a, out);
}

bool equal(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (a->op != b->op || a->value != b->value || a->name != b->name || a->args.size() != b->args.size()) return false;
  for (std::size_t i = 0; i < a->args.size(); ++i)
    if (!equal(a->args[i], b->args[i])) return false;
  return true;
}

namespace {

// Python precedence, higher binds tighter.
int precedence(Op op) {
  switch (op) {
    case Op::Or:
      return 1;
    case Op::And:
      return 2;
    case Op::Not:
      return 3;
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne:
      return 4;
    case Op::BitOr:
      return 5;
    case Op::BitXor:
      return 6;
    case Op::BitAnd:
      return 7;
    case Op::Shl:
    case Op::Shr:
      return 8;
    case Op::Add:
    case Op::Sub:
      return 9;
    case Op::Mul:
    case Op::FloorDiv:
    case Op::Mod:
      return 10;
    case Op::Neg:
    case Op::BitNot:
      return 11;
    default:
      return 12;  // atoms and calls
  }
}

const char* infix(Op op) {
  switch (op) {
    case Op::Add:
      return " + ";
    case Op::Sub:
      return " - ";
    case Op::Mul:
      return "*";
    case Op::FloorDiv:
      return "//";
    case Op::Mod:
      return " % ";
    case Op::Lt:
      return " < ";
    case Op::Le:
      return " <= ";
    case Op::Gt:
      return " > ";
    case Op::Ge:
      return " >= ";
    case Op::Eq:
      return " == ";
    case Op::Ne:
      return " != ";
    case Op::And:
      return " and ";
    case Op::Or:
      return " or ";
    case Op::BitAnd:
      return " & ";
    case Op::BitOr:
      return " | ";
    case Op::BitXor:
      return " ^ ";
    case Op::Shl:
      return " << ";
    case Op::Shr:
      return " >> ";
    default:
      return "?";
  }
}

std::string print(const Expr& e, int parent) {
  const int p = precedence(e->op);
  std::string s;
  switch (e->op) {
    case Op::Const:
      s = std::to_string(e->value);
      // A negative literal is a unary minus when read back.
      return (e->value < 0 && parent > precedence(Op::Neg)) ? "(" + s + ")" : s;
    case Op::Sym:
      return e->name;
    case Op::Min:
    case Op::Max:
    case Op::Select:
    case Op::Isqrt: {
      s = e->op == Op::Min ? "min(" : e->op == Op::Max ? "max(" : e->op == Op::Select ? "select(" : "isqrt(";
      for (std::size_t i = 0; i < e->args.size(); ++i) s += (i ? ", " : "") + print(e->args[i], 0);
      return s + ")";
    }
    case Op::Neg:
      s = "-" + print(e->args[0], p);
      break;
    case Op::BitNot:
      s = "~" + print(e->args[0], p);
      break;
    case Op::Not:
      s = "not " + print(e->args[0], p);
      break;
    default:
      // Comparisons do not chain in our reading, so parenthesize nested ones.
      s = print(e->args[0], p + (p == 4 ? 1 : 0)) + infix(e->op) + print(e->args[1], p + 1);
  }
  return p < parent ? "(" + s + ")" : s;
}

}  // namespace

std::string to_string(const Expr& e) { return print(e, 0); }

}  // namespace lego
