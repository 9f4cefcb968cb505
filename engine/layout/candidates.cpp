#include "layout/candidates.hpp"

#include "layout/make_plan.hpp"
#include "layout/untiled_view.hpp"

namespace lego {
namespace {

std::vector<Expr> constants(std::initializer_list<std::int64_t> values) {
  std::vector<Expr> out;
  for (std::int64_t v : values) out.push_back(constant(v));
  return out;
}

Piece piece(PieceKind kind, std::int64_t a, std::int64_t b) {
  Piece p;
  p.kind = kind;
  p.dims = constants({a, b});
  return p;
}

Piece genp(std::int64_t rows, std::int64_t columns, const std::string& library, std::vector<std::int64_t> params = {}) {
  Piece p;
  p.kind = PieceKind::GenP;
  p.dims = constants({rows, columns});
  p.genp.library = library;
  p.genp.has_param_list = !params.empty();
  for (std::int64_t v : params) p.genp.params.push_back(constant(v));
  return p;
}

LayoutAst grouped(Piece p, std::int64_t rows, std::int64_t columns) {
  LayoutAst l;
  l.chain.push_back(OrderByAst{{std::move(p)}, {}});
  l.closing = Closing::GroupBy;
  l.groups = {constants({rows, columns})};
  return l;
}

// OrderBy(GRID(R/tr, C/tc), TILE(tr, tc)).TileBy([R/tr, C/tc], [tr, tc]).
LayoutAst tiled(PieceKind grid, PieceKind tile, std::int64_t rows, std::int64_t columns, std::int64_t tr, std::int64_t tc) {
  LayoutAst l;
  l.chain.push_back(OrderByAst{{piece(grid, rows / tr, columns / tc), piece(tile, tr, tc)}, {}});
  l.closing = Closing::TileBy;
  l.groups = {constants({rows / tr, columns / tc}), constants({tr, tc})};
  return l;
}

// A square GenP over the whole buffer, closed by TileBy as the language's examples write it.
LayoutAst square_genp(std::int64_t n, const std::string& library) {
  LayoutAst l;
  l.chain.push_back(OrderByAst{{genp(n, n, library)}, {}});
  l.closing = Closing::TileBy;
  l.groups = {constants({n, n})};
  return l;
}

}  // namespace

LayoutAst row_major_layout(std::int64_t rows, std::int64_t columns) { return grouped(piece(PieceKind::Row, rows, columns), rows, columns); }

LayoutAst column_major_layout(std::int64_t rows, std::int64_t columns) {
  return grouped(piece(PieceKind::Col, rows, columns), rows, columns);
}

std::vector<CandidateLayout> buffer_candidates(std::int64_t rows, std::int64_t columns, int element_bytes) {
  std::vector<CandidateLayout> out;
  const auto add = [&](std::string name, std::string family, LayoutAst layout) {
    out.push_back({std::move(name), std::move(family), std::move(layout)});
  };
  add("row", "row", row_major_layout(rows, columns));
  add("col", "col", column_major_layout(rows, columns));
  // Tiles (the RegP permutations of the tiled shape): a grid of tr x tc
  // tiles, each row- or column-major, the grid row- or column-major; they
  // keep a thread's block of the buffer together for lines and sectors.
  for (std::int64_t tr : {1, 2, 4, 8, 16, 32})
    for (std::int64_t tc : {1, 2, 4, 8, 16, 32}) {
      if (rows % tr != 0 || columns % tc != 0 || tr * tc < 8 || (tr == rows && tc == columns) || (tr == 1 && tc == columns) ||
          (tc == 1 && tr == rows))
        continue;
      const std::string size = std::to_string(tr) + "x" + std::to_string(tc);
      add("tiles " + size, "tiled", tiled(PieceKind::Row, PieceKind::Row, rows, columns, tr, tc));
      add("tiles " + size + " col-major", "tiled", tiled(PieceKind::Row, PieceKind::Col, rows, columns, tr, tc));
      add("tiles " + size + " col-major grid", "tiled", tiled(PieceKind::Col, PieceKind::Row, rows, columns, tr, tc));
    }
  // Padding shifts each row by p elements, so a column walks the banks.
  for (std::int64_t p : {1, 2, 4, 8})
    if (p * element_bytes <= 32) add("padded+" + std::to_string(p), "padded", row_major_layout(rows, columns + p));
  if (rows == columns) {
    add("antidiag", "antidiag", square_genp(rows, "antidiag"));
    add("skew", "skew", square_genp(rows, "skew"));
  }
  // CuTe-style XOR swizzles: bits of the row flip bits of the column.
  for (int b = 1; b <= 5; ++b)
    for (int m = 0; m <= 3; ++m)
      for (int s = 1; s <= 7; ++s)
        add("swizzle(" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) + ")", "swizzle",
            grouped(genp(rows, columns, "swizzle", {b, m, s}), rows, columns));
  return out;
}

LayoutAst as_buffer_reads_it(const LayoutAst& layout) { return untiled_view(layout, 2); }

std::optional<Placement> place_buffer(const LayoutAst& layout, const Env& env, std::int64_t rows, std::int64_t columns) {
  const Plan plan = make_plan(as_buffer_reads_it(layout), env);
  if (plan.rank() != 2 || plan.shape()[0] < rows || plan.shape()[1] < columns) return std::nullopt;
  std::vector<std::int64_t> all(static_cast<std::size_t>(plan.size()));
  plan.apply_all(all.data());
  std::vector<bool> seen(static_cast<std::size_t>(plan.physical_size()), false);
  for (std::int64_t x : all) {
    if (x < 0 || x >= plan.physical_size() || seen[static_cast<std::size_t>(x)]) return std::nullopt;
    seen[static_cast<std::size_t>(x)] = true;
  }
  Placement out;
  out.shape = plan.shape();
  // One-to-one from the buffer's box onto the footprint; a padded layout
  // leaves R * p positions no element reaches.
  out.extra_elements = plan.physical_size() - rows * columns;
  out.offsets.resize(static_cast<std::size_t>(rows * columns));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < columns; ++k)
      out.offsets[static_cast<std::size_t>(r * columns + k)] = all[static_cast<std::size_t>(r * plan.shape()[1] + k)];
  return out;
}

}  // namespace lego
