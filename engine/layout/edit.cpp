#include "layout/edit.hpp"

#include "layout/genp.hpp"
#include "layout/parse.hpp"

namespace lego {

namespace {

const OrderByAst& block_at(const LayoutAst& layout, std::size_t block) {
  if (block >= layout.chain.size())
    throw LegoError("OrderBy " + std::to_string(block) + " does not exist; the layout has " + std::to_string(layout.chain.size()));
  return layout.chain[block];
}

void check_position(const OrderByAst& o, std::size_t position, bool insertion) {
  const std::size_t limit = o.pieces.size() + (insertion ? 1 : 0);
  if (position >= limit)
    throw LegoError("piece " + std::to_string(position) + " does not exist; the OrderBy has " + std::to_string(o.pieces.size()));
}

Expr product(const Expr& a, const Expr& b) {
  if (is_const(a) && a->value == 1) return b;
  if (is_const(b) && b->value == 1) return a;
  return make(Op::Mul, {a, b});
}

// Spans refer to the text the layout was parsed from, which an edit changes.
LayoutAst without_spans(LayoutAst layout) { return parse_layout(print(layout)); }

}  // namespace

std::vector<Expr> logical_extents(const LayoutAst& layout) {
  std::vector<Expr> out;
  if (layout.groups.empty()) return out;
  out = layout.groups[0];
  if (layout.closing == Closing::TileBy) {
    for (std::size_t level = 1; level < layout.groups.size(); ++level)
      for (std::size_t k = 0; k < out.size() && k < layout.groups[level].size(); ++k) out[k] = product(out[k], layout.groups[level][k]);
  } else {
    // GroupBy's groups are dimensions of their own: [(R,R),(T,T)] indexes a 4-D box.
    for (std::size_t g = 1; g < layout.groups.size(); ++g) out.insert(out.end(), layout.groups[g].begin(), layout.groups[g].end());
  }
  return out;
}

Piece piece_of_entry(std::vector<Expr> dims, std::string_view entry) {
  if (dims.empty()) dims = {constant(1)};
  std::string text;
  std::string list;
  for (std::size_t k = 0; k < dims.size(); ++k) list += (k ? ", " : "") + to_string(dims[k]);
  if (entry == "Row" || entry == "Col") {
    text = std::string(entry) + "(" + list + ")";
  } else if (entry == "RegP") {
    std::string perm;  // reversed: a visible change from Row
    for (std::size_t k = dims.size(); k-- > 0;) perm += std::to_string(k) + (k ? ", " : "");
    text = "RegP([" + list + "], [" + perm + "])";
  } else if (entry == "GenP:user") {
    // The identity of the row-major order, written out for the user to edit.
    std::string params, flat, inv;
    for (std::size_t k = 0; k < dims.size(); ++k) params += (k ? ", " : "") + std::string(1, static_cast<char>('a' + k));
    for (std::size_t k = 0; k < dims.size(); ++k) {
      const std::string v(1, static_cast<char>('a' + k));
      flat = flat.empty() ? v : "(" + flat + ")*(" + to_string(dims[k]) + ") + " + v;
    }
    std::string rest = "x";
    std::vector<std::string> parts(dims.size());
    for (std::size_t k = dims.size(); k-- > 0;) {
      const std::string d = "(" + to_string(dims[k]) + ")";
      parts[k] = k == 0 ? rest : rest + " % " + d;
      rest = "(" + rest + ") // " + d;
    }
    for (std::size_t k = 0; k < parts.size(); ++k) inv += parts[k] + (dims.size() == 1 || k + 1 < parts.size() ? ", " : "");
    text = "GenP([" + list + "], lambda " + params + ": " + flat + ", lambda x: (" + inv + "))";
  } else {
    text = "GenP([" + list + "], " + std::string(entry) + ")";
  }
  return parse_piece(text);
}

Piece default_piece(const LayoutAst& layout, std::size_t block, std::string_view entry) {
  std::vector<Expr> dims;
  if (block < layout.chain.size() && !layout.chain[block].pieces.empty())
    dims = layout.chain[block].pieces.front().dims;
  else
    dims = logical_extents(layout);
  return piece_of_entry(std::move(dims), entry);
}

Piece default_piece_at(const LayoutAst& layout, std::size_t block, std::size_t position, std::string_view entry) {
  check_position(block_at(layout, block), position, false);
  return piece_of_entry(layout.chain[block].pieces[position].dims, entry);
}

Piece parse_piece(std::string_view text) {
  // Parsed inside a stand-in layout; spans shift back into `text`.
  static constexpr std::string_view kPrefix = "OrderBy(";
  const std::string wrapped = std::string(kPrefix) + std::string(text) + ").GroupBy([(1)])";
  try {
    LayoutAst ast = parse_layout(wrapped);
    if (ast.chain.size() != 1 || ast.chain[0].pieces.size() != 1) throw LegoError(Span{0, text.size()}, "expected exactly one piece");
    return ast.chain[0].pieces[0];
  } catch (const LegoError& e) {
    Span s = e.diagnostic().span;
    if (s.known()) {
      const auto shift = [&](std::size_t at) { return at < kPrefix.size() ? 0 : std::min(at - kPrefix.size(), text.size()); };
      s = Span{shift(s.begin), shift(s.end)};
    }
    throw LegoError(s, e.diagnostic().message);
  }
}

LayoutAst insert_piece(const LayoutAst& layout, std::size_t block, std::size_t position, const Piece& piece) {
  LayoutAst out = layout;
  if (block == out.chain.size()) return insert_block(layout, block, piece);
  check_position(block_at(out, block), position, true);
  auto& pieces = out.chain[block].pieces;
  pieces.insert(pieces.begin() + static_cast<std::ptrdiff_t>(position), piece);
  return without_spans(std::move(out));
}

LayoutAst insert_block(const LayoutAst& layout, std::size_t block, const Piece& piece) {
  if (block > layout.chain.size()) throw LegoError("cannot insert OrderBy " + std::to_string(block));
  LayoutAst out = layout;
  OrderByAst o;
  o.pieces.push_back(piece);
  out.chain.insert(out.chain.begin() + static_cast<std::ptrdiff_t>(block), std::move(o));
  return without_spans(std::move(out));
}

LayoutAst remove_piece(const LayoutAst& layout, std::size_t block, std::size_t position) {
  check_position(block_at(layout, block), position, false);
  LayoutAst out = layout;
  auto& pieces = out.chain[block].pieces;
  pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(position));
  if (pieces.empty()) {
    if (out.chain.size() == 1)
      throw LegoError("a layout needs at least one OrderBy with one piece; add another piece before removing this one");
    out.chain.erase(out.chain.begin() + static_cast<std::ptrdiff_t>(block));
  }
  return without_spans(std::move(out));
}

LayoutAst move_piece(const LayoutAst& layout, std::size_t from_block, std::size_t from_position, std::size_t to_block,
                     std::size_t to_position) {
  check_position(block_at(layout, from_block), from_position, false);
  LayoutAst out = layout;
  const Piece piece = out.chain[from_block].pieces[from_position];
  auto& from = out.chain[from_block].pieces;
  from.erase(from.begin() + static_cast<std::ptrdiff_t>(from_position));
  // Positions in the target block count the piece being moved out of it.
  if (to_block == from_block && to_position > from_position) --to_position;
  if (to_block >= out.chain.size()) {
    OrderByAst o;
    o.pieces.push_back(piece);
    out.chain.push_back(std::move(o));
  } else {
    auto& to = out.chain[to_block].pieces;
    to.insert(to.begin() + static_cast<std::ptrdiff_t>(std::min(to_position, to.size())), piece);
  }
  if (from.empty()) out.chain.erase(out.chain.begin() + static_cast<std::ptrdiff_t>(from_block));
  return without_spans(std::move(out));
}

LayoutAst replace_piece(const LayoutAst& layout, std::size_t block, std::size_t position, const Piece& piece) {
  check_position(block_at(layout, block), position, false);
  LayoutAst out = layout;
  out.chain[block].pieces[position] = piece;
  return without_spans(std::move(out));
}

LayoutAst add_tile_level(const LayoutAst& layout) {
  LayoutAst out = layout;
  if (out.groups.empty()) throw LegoError("the layout has no GroupBy or TileBy to add a level to");
  if (out.closing == Closing::GroupBy) {
    if (out.groups.size() != 1) throw LegoError("a GroupBy with several groups cannot become a TileBy; edit its text instead");
    out.closing = Closing::TileBy;
  }
  out.groups.push_back(std::vector<Expr>(out.groups[0].size(), constant(1)));
  return without_spans(std::move(out));
}

LayoutAst toggle_expand(const LayoutAst& layout) {
  LayoutAst out = layout;
  if (out.expand_to)
    out.expand_to.reset();
  else
    out.expand_to = logical_extents(layout);
  return without_spans(std::move(out));
}

}  // namespace lego
