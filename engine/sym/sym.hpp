// Symbolic index expressions: an immutable, hash-consed DAG in canonical
// form, built through a Pool that owns every node. The canonical form is a
// linear combination  c0 + sum(c_k * t_k)  whose terms are sorted and
// combined, products are sorted and flattened, and constants fold, so equal
// expressions are the same node and  i*n + j - n*i  is just  j.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "expr/expr.hpp"

namespace lego::sym {

enum class Kind : std::uint8_t {
  Const,
  Var,
  Sum,      // constant + sum of (coef * term); terms are never Const or Sum
  Product,  // sorted factors, at least two, none Const
  FloorDiv,
  Mod,
  Min,
  Max,
  Select,  // select(cond, a, b)
  Lt,
  Le,
  Eq,
  Ne,
  And,
  Or,
  Not,
  Isqrt,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
};

struct Node;
using Ref = const Node*;  // owned by a Pool; compare by pointer

struct Term {
  std::int64_t coef;
  Ref term;
  friend bool operator==(const Term&, const Term&) = default;
};

struct Node {
  Kind kind = Kind::Const;
  std::int64_t value = 0;   // Const; Sum: the constant part
  std::string name;         // Var
  std::vector<Term> terms;  // Sum
  std::vector<Ref> args;    // everything else
  std::size_t hash = 0;
  std::uint32_t id = 0;  // creation order, for a stable total order
};

// Total order used to sort operands canonically: by kind, then content.
bool less(Ref a, Ref b);

class Pool {
 public:
  Pool();
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  Ref constant(std::int64_t v);
  Ref var(const std::string& name);

  Ref add(Ref a, Ref b);
  Ref sub(Ref a, Ref b);
  Ref mul(Ref a, Ref b);
  Ref scale(std::int64_t c, Ref a);
  Ref add_constant(Ref a, std::int64_t c);
  Ref neg(Ref a) { return scale(-1, a); }
  Ref sum(std::int64_t constant, const std::vector<Term>& terms);

  // Folding only (constants, x//1, x%1, 0//d); range-aware rules live in
  // the Simplifier.
  Ref floordiv(Ref a, Ref b);
  Ref mod(Ref a, Ref b);
  Ref min(Ref a, Ref b);
  Ref max(Ref a, Ref b);
  Ref select(Ref c, Ref a, Ref b);
  Ref compare(Kind k, Ref a, Ref b);  // Lt Le Eq Ne
  Ref logic(Kind k, Ref a, Ref b);    // And Or
  Ref logical_not(Ref a);
  Ref isqrt(Ref a);
  Ref bits(Kind k, Ref a, Ref b);  // BitAnd BitOr BitXor Shl Shr

  // The same operator over new operands (canonicalizing again); for
  // bottom-up rewrites. Sum: args are the terms in order, coefficients kept.
  Ref rebuild(Ref e, const std::vector<Ref>& args);

  // From a parsed expression; symbols found in `substitutions` are replaced
  // (lambda parameters, bound sizes), others become variables.
  Ref from_expr(const Expr& e, const std::map<std::string, Ref, std::less<>>& substitutions = {});

  std::size_t size() const { return nodes_.size(); }

 private:
  Ref intern(Node n);
  Ref make(Kind k, std::vector<Ref> args);
  struct Hash {
    std::size_t operator()(Ref n) const { return n->hash; }
  };
  struct Equal {
    bool operator()(Ref a, Ref b) const;
  };
  std::deque<Node> nodes_;
  std::unordered_set<Ref, Hash, Equal> table_;
};

inline bool is_const(Ref e) { return e->kind == Kind::Const; }
// Comparisons and logic: values in {0, 1}.
inline bool is_boolean(Ref e) {
  switch (e->kind) {
    case Kind::Lt:
    case Kind::Le:
    case Kind::Eq:
    case Kind::Ne:
    case Kind::And:
    case Kind::Or:
    case Kind::Not:
      return true;
    default:
      return false;
  }
}
inline bool is_const(Ref e, std::int64_t v) { return e->kind == Kind::Const && e->value == v; }

using Values = std::map<std::string, std::int64_t, std::less<>>;

// Exact evaluation with floor semantics; throws LegoError on an unbound
// variable, a division by zero or an overflow.
std::int64_t evaluate(Ref e, const Values& values);

// Names of the variables e refers to.
void collect_vars(Ref e, std::set<std::string>& out);

// The equivalent parsed-expression tree (for CompiledExpr and the checked evaluator).
Expr to_expr(Ref e);

// Python-syntax text, for messages and tests (printers in print.hpp).
std::string debug_string(Ref e);

}  // namespace lego::sym
