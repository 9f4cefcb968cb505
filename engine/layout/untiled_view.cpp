#include "layout/untiled_view.hpp"

#include <string>

#include "layout/tiling.hpp"

namespace lego {
namespace {

OrderByAst regp_orderby(const RegPOf<Expr>& r, Span span) {
  Piece p;
  p.kind = PieceKind::RegP;
  p.dims = r.dims;
  p.perm = r.perm;
  p.span = span;
  return OrderByAst{{p}, span};
}

}  // namespace

std::size_t logical_rank(const LayoutAst& layout) {
  std::size_t r = 0;
  for (const auto& g : layout.groups) r += g.size();
  return r;
}

LayoutAst untiled_view(const LayoutAst& layout, std::size_t rank) {
  const std::size_t written = logical_rank(layout);
  if (written == rank) return layout;
  const bool untilable =
      layout.closing == Closing::TileBy && !layout.expand_to && !layout.groups.empty() && layout.groups[0].size() == rank;
  if (!untilable)
    throw LegoError(layout.span, "the layout has " + std::to_string(written) + " logical dimensions but the tensor has " +
                                     std::to_string(rank) + "; give the tensor a layout over its own extents (GroupBy) or a TileBy of " +
                                     std::to_string(rank) + "-tuples");
  LayoutAst view = layout;
  view.chain.clear();
  for (const auto& o : layout.chain) {
    std::vector<Expr> dims;
    for (const auto& p : o.pieces) dims.insert(dims.end(), p.dims.begin(), p.dims.end());
    view.chain.push_back(o);
    view.chain.push_back(regp_orderby(retile(dims, static_cast<int>(o.pieces[0].dims.size()), static_cast<int>(o.pieces.size())), o.span));
  }
  std::vector<Expr> extents(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    extents[k] = layout.groups[0][k];
    for (std::size_t h = 1; h < layout.groups.size(); ++h) extents[k] = make(Op::Mul, {extents[k], layout.groups[h][k]});
  }
  view.closing = Closing::GroupBy;
  view.groups = {extents};
  return view;
}

}  // namespace lego
