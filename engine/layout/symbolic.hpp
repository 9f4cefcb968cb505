// Symbolic apply / inv: the spec's semantics evaluated on symbolic indices
// and extents, simplified stage by stage with ranges (expr/simplify.hpp).
// Extents bound in `env` become constants; unbound ones stay symbolic and
// are assumed >= 1. Size equalities that cannot be checked without values
// are returned as assumptions for the caller to state or assert.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "layout/ast.hpp"
#include "sym/simplify.hpp"

namespace lego {

struct SymPiece {
  std::vector<sym::Ref> dims;
  std::vector<int> perm;           // RegP; empty for GenP
  const GenPSpec* genp = nullptr;  // GenP
  Span span;
};

struct SymOrderBy {
  std::vector<SymPiece> pieces;
  Span span;
  std::vector<sym::Ref> dims() const;
};

// Symbols of the layout's extents and GenP parameters that env leaves unbound.
std::set<std::string> free_symbols(const LayoutAst& layout, const Env& env);

class Derivation {
 public:
  // Checks what can be checked without values (permutations, TileBy
  // structure, bound sizes); throws LegoError at the offending span.
  // Constraints on unbound sizes help the simplifier:  A % B == 0  makes A
  // a multiple of B (A = B*q inside, folded back when printing), and
  // A >= c, A <= c, A > c, A < c bound A. Others are not used here.
  Derivation(sym::Pool& pool, const LayoutAst& layout, const Env& env, const std::vector<Expr>& constraints = {});

  const std::vector<sym::Ref>& shape() const { return shape_; }
  sym::Ref size() const { return size_; }
  sym::Ref physical_size() const { return physical_size_; }
  bool has_inverse() const { return !injective_; }
  const std::vector<std::string>& assumptions() const { return assumptions_; }
  // The same assumptions as expressions that must be 0 (OrderBy size - size).
  const std::vector<sym::Ref>& size_differences() const { return size_differences_; }
  const std::vector<SymOrderBy>& chain() const { return chain_; }  // TileBy desugared
  // An expression as the user wrote its sizes: internal quotients of
  // "A % B == 0" folded back (B*q -> A, q -> A // B).
  sym::Ref present(sym::Ref e) const;
  bool expanded() const { return expand_.has_value(); }

  // Facts for the simplifier: the layout's size symbols are >= 1; each
  // index variable named in `index_ranges` lies in [0, extent - 1].
  sym::Facts facts(const std::vector<std::pair<std::string, sym::Ref>>& index_ranges) const;

  sym::Ref apply(const std::vector<sym::Ref>& idx, sym::Simplifier& s) const;
  std::vector<sym::Ref> inv(sym::Ref x, sym::Simplifier& s) const;

 private:
  sym::Ref piece_apply(const SymPiece& p, const std::vector<sym::Ref>& idx, sym::Simplifier& s) const;
  std::vector<sym::Ref> piece_inv(const SymPiece& p, sym::Ref x, sym::Simplifier& s) const;
  void take_constraint(const Expr& c);
  sym::Ref flat(const std::vector<sym::Ref>& idx, const std::vector<sym::Ref>& n, sym::Simplifier& s) const;
  std::vector<sym::Ref> unflat(sym::Ref x, const std::vector<sym::Ref>& n, sym::Simplifier& s) const;

  sym::Pool& pool_;
  Env env_;
  std::vector<SymOrderBy> chain_;
  std::vector<sym::Ref> shape_;
  sym::Ref size_ = nullptr;
  sym::Ref physical_size_ = nullptr;
  bool injective_ = false;
  std::int64_t footprint_ = 0;                                                     // an apply-only layout's, with every size bound
  std::optional<std::pair<std::vector<sym::Ref>, std::vector<sym::Ref>>> expand_;  // (original, expanded)
  std::vector<std::string> symbols_;
  std::unordered_set<sym::Ref> sizes_;
  struct Multiple {  // name == divisor * quotient
    std::string name;
    sym::Ref quotient, divisor;
    std::set<std::string> divisor_symbols;  // symbols the divisor stands on
  };
  std::vector<Multiple> multiples_;
  std::map<std::string, sym::Ref, std::less<>> substitutions_;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>, std::less<>> bounds_;
  std::vector<std::string> assumptions_;
  std::vector<sym::Ref> size_differences_;
  // flat() results with their (dims, coordinates), so unflat() can undo them.
  mutable std::map<sym::Ref, std::pair<std::vector<sym::Ref>, std::vector<sym::Ref>>> flattened_;
};

}  // namespace lego
