#include <algorithm>
#include <limits>
#include <numeric>

#include "layout/bound.hpp"
#include "layout/shape.hpp"
#include "layout/tiling.hpp"

namespace lego {

namespace {

constexpr std::int64_t kMaxSize = std::int64_t{1} << 62;

std::int64_t checked_product(const std::vector<std::int64_t>& v, Span at) {
  std::int64_t p = 1;
  for (auto x : v)
    if (__builtin_mul_overflow(p, x, &p) || p > kMaxSize) throw LegoError(at, "the layout has more than 2^62 elements");
  return p;
}

std::vector<std::int64_t> eval_extents(const std::vector<Expr>& exprs, const Env& env) {
  std::vector<std::int64_t> v;
  for (const auto& e : exprs) {
    const std::int64_t x = evaluate(e, env);
    if (x < 1) throw LegoError(e->span, "extent '" + to_string(e) + "' is " + std::to_string(x) + "; extents must be at least 1");
    v.push_back(x);
  }
  return v;
}

BoundPiece bind_piece(const Piece& p, const Env& env) {
  BoundPiece b;
  b.span = p.span;
  b.dims = eval_extents(p.dims, env);
  checked_product(b.dims, p.span);
  if (p.kind == PieceKind::GenP) {
    b.genp = make_genp(p.genp, b.dims, env, p.span);
    return b;
  }
  b.perm = piece_permutation(p);
  return b;
}

void check_permutation(const Piece& p) {
  const std::vector<int> perm = piece_permutation(p);
  const Span at = p.perm_span.known() ? p.perm_span : p.span;
  if (perm.size() != p.dims.size())
    throw LegoError(at, "the permutation has " + std::to_string(perm.size()) + " entries but the piece has " +
                            std::to_string(p.dims.size()) + " dimensions");
  std::vector<bool> seen(perm.size(), false);
  for (int s : perm) {
    if (s < 0 || s >= static_cast<int>(perm.size()) || seen[s])
      throw LegoError(at, "not a permutation of 0.." + std::to_string(perm.size() - 1) + ": entry " + std::to_string(s) +
                              (s >= 0 && s < static_cast<int>(perm.size()) ? " repeats" : " is out of range"));
    seen[s] = true;
  }
}

BoundOrderBy regp_orderby(RegPOf<std::int64_t> r) {
  BoundOrderBy o;
  o.pieces.push_back(BoundPiece{std::move(r.dims), std::move(r.perm), nullptr, {}});
  return o;
}

// TileBy -> GroupBy chain O_1, C_1, .., O_m, C_m, F (spec, "TileBy").
void desugar_tiling(BoundLayout& out, const std::vector<std::vector<std::int64_t>>& levels) {
  const int d = static_cast<int>(levels[0].size());
  const int q = static_cast<int>(levels.size());
  std::vector<BoundOrderBy> chain;
  for (auto& o : out.chain) {
    const int dk = static_cast<int>(o.pieces[0].dims.size());
    const int qk = static_cast<int>(o.pieces.size());
    const auto dims = o.dims();
    chain.push_back(std::move(o));
    chain.push_back(regp_orderby(retile(dims, dk, qk)));
  }
  std::vector<std::int64_t> t;
  for (const auto& level : levels) t.insert(t.end(), level.begin(), level.end());
  chain.push_back(regp_orderby(untile(t, d, q)));
  out.chain = std::move(chain);
  out.shape = t;
}

}  // namespace

std::int64_t BoundPiece::size() const { return product(dims); }

std::vector<std::int64_t> BoundOrderBy::dims() const {
  std::vector<std::int64_t> v;
  for (const auto& p : pieces) v.insert(v.end(), p.dims.begin(), p.dims.end());
  return v;
}

std::int64_t BoundOrderBy::size() const {
  std::int64_t s = 1;
  for (const auto& p : pieces) s *= p.size();
  return s;
}

std::int64_t BoundLayout::physical_size() const {
  if (expand) return product(expand->original);
  return injective ? std::max(size, footprint) : size;
}

void validate_structure(const LayoutAst& ast) {
  if (ast.chain.empty()) throw LegoError(ast.span, "a layout needs at least one OrderBy");
  for (const auto& o : ast.chain) {
    if (o.pieces.empty()) throw LegoError(o.span, "OrderBy needs at least one piece");
    for (const auto& p : o.pieces) {
      if (p.dims.empty()) throw LegoError(p.span, "a piece needs at least one dimension");
      if (p.kind != PieceKind::GenP) check_permutation(p);
    }
  }
  if (ast.groups.empty()) throw LegoError(ast.closing_span, "GroupBy/TileBy needs at least one group");
  for (const auto& g : ast.groups)
    if (g.empty()) throw LegoError(ast.closing_span, "an empty group; write each group as a tuple such as (6,6)");
  if (ast.closing != Closing::TileBy) return;
  const std::size_t d = ast.groups[0].size();
  for (std::size_t h = 0; h < ast.groups.size(); ++h)
    if (ast.groups[h].size() != d)
      throw LegoError(Span::join(ast.groups[h].front()->span, ast.groups[h].back()->span),
                      "TileBy level " + std::to_string(h + 1) + " has " + std::to_string(ast.groups[h].size()) +
                          " extents; every level must have " + std::to_string(d) + " (one per tensor dimension)");
  for (const auto& o : ast.chain) {
    const std::size_t dk = o.pieces[0].dims.size();
    for (const auto& p : o.pieces)
      if (p.dims.size() != dk)
        throw LegoError(p.span, "under TileBy every piece of an OrderBy tiles the same " + std::to_string(dk) +
                                    " dimensions; this piece has " + std::to_string(p.dims.size()));
  }
}

BoundLayout bind(const LayoutAst& ast, const Env& env) {
  validate_structure(ast);
  BoundLayout out;
  for (const auto& o : ast.chain) {
    BoundOrderBy b;
    b.span = o.span;
    for (const auto& p : o.pieces) b.pieces.push_back(bind_piece(p, env));
    checked_product(b.dims(), o.span);
    out.chain.push_back(std::move(b));
  }
  std::vector<std::vector<std::int64_t>> groups;
  for (const auto& g : ast.groups) groups.push_back(eval_extents(g, env));

  // Injective (apply-only) GenPs are allowed in one form only (spec).
  bool any_injective = false;
  for (const auto& o : out.chain)
    for (const auto& p : o.pieces)
      if (p.genp && !p.genp->has_inverse()) any_injective = true;
  if (any_injective) {
    const bool single = out.chain.size() == 1 && out.chain[0].pieces.size() == 1 && ast.closing == Closing::GroupBy && !ast.expand_to;
    std::vector<std::int64_t> flat_groups;
    for (const auto& g : groups) flat_groups.insert(flat_groups.end(), g.begin(), g.end());
    if (!single || out.chain[0].dims() != flat_groups)
      throw LegoError(out.chain[0].span,
                      "a GenP without an inverse (apply-only) is allowed only as the single piece of the single "
                      "OrderBy of a GroupBy with the same shape; give it an inv lambda to use it here");
    out.injective = true;
  }

  if (ast.closing == Closing::TileBy) {
    desugar_tiling(out, groups);
  } else {
    for (const auto& g : groups) out.shape.insert(out.shape.end(), g.begin(), g.end());
  }
  out.size = checked_product(out.shape, ast.closing_span);
  for (const auto& o : out.chain)
    if (o.size() != out.size)
      throw LegoError(o.span, "this OrderBy has " + std::to_string(o.size()) + " elements (dims " + shape_text(o.dims()) + ") but " +
                                  (ast.closing == Closing::TileBy ? "TileBy" : "GroupBy") + " has " + std::to_string(out.size) +
                                  " (shape " + shape_text(out.shape) + "); every OrderBy must have the same size");

  if (ast.expand_to) {
    BoundLayout::Expand e;
    e.original = eval_extents(*ast.expand_to, env);
    if (ast.closing == Closing::TileBy) {
      const std::size_t d = groups[0].size();
      e.expanded.assign(d, 1);
      for (const auto& level : groups)
        for (std::size_t k = 0; k < d; ++k) e.expanded[k] *= level[k];
    } else {
      e.expanded = out.shape;
    }
    if (e.original.size() != e.expanded.size())
      throw LegoError(ast.expand_span, "ExpandBy gives " + std::to_string(e.original.size()) + " extents but the layout covers a " +
                                           std::to_string(e.expanded.size()) + "-D box " + shape_text(e.expanded));
    for (std::size_t k = 0; k < e.original.size(); ++k)
      if (e.original[k] > e.expanded[k])
        throw LegoError((*ast.expand_to)[k]->span, "ExpandBy extent " + std::to_string(e.original[k]) + " exceeds the tiled extent " +
                                                       std::to_string(e.expanded[k]) + "; tiles must cover the tensor");
    out.expand = std::move(e);
  }
  return out;
}

}  // namespace lego
