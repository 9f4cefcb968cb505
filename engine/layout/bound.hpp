// A layout with concrete extents, TileBy desugared into the spec's GroupBy
// chain, every precondition checked. Input to the plan compiler (plan.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "expr/expr.hpp"
#include "layout/ast.hpp"
#include "layout/genp.hpp"

namespace lego {

struct BoundPiece {
  std::vector<std::int64_t> dims;
  std::vector<int> perm;  // RegP; empty for GenP
  GenPPtr genp;           // GenP; null for RegP
  Span span;
  std::int64_t size() const;
};

struct BoundOrderBy {
  std::vector<BoundPiece> pieces;
  Span span;
  std::vector<std::int64_t> dims() const;  // concatenated piece dims
  std::int64_t size() const;
};

struct BoundLayout {
  std::vector<BoundOrderBy> chain;  // written order: first is closest to memory
  std::vector<std::int64_t> shape;  // logical shape (GroupBy / TileBy levels, flattened)
  std::int64_t size = 1;
  bool injective = false;  // apply-only GenP layout
  // An apply-only layout's offsets reach [0, footprint): padding such as
  // CuTe's (32,32):(33,1) makes it larger than size. Set by
  // validate_user_genps, which evaluates every index; 0 until then.
  std::int64_t footprint = 0;
  struct Expand {
    std::vector<std::int64_t> original;  // n_orig
    std::vector<std::int64_t> expanded;  // n_exp
  };
  std::optional<Expand> expand;
  std::int64_t physical_size() const;  // |n_orig| under ExpandBy, an injective layout's footprint, else size
};

// The rules that need no values: non-empty chain, pieces and groups, valid
// permutations, TileBy levels of one length and pieces of one rank per
// OrderBy. Throws a LegoError at the offending span.
void validate_structure(const LayoutAst& layout);

// Evaluates extents under env and checks the algebra's rules (after
// validate_structure); throws a
// LegoError at the offending span (unbound symbol, extent < 1, bad
// permutation, size mismatch, injective GenP in the wrong place, ...).
BoundLayout bind(const LayoutAst& layout, const Env& env);

}  // namespace lego
