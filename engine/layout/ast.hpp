// The layout algebra as written: pieces, OrderBy chains closed by GroupBy or
// TileBy, optionally narrowed by ExpandBy. Extents are expressions, possibly
// symbolic; bind() (bind.hpp) turns an Ast into concrete sizes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "expr/expr.hpp"

namespace lego {

// A GenP's function: a library entry by name (with parameters such as
// swizzle(3,0,3)), or a user-defined lambda pair.
struct GenPSpec {
  std::string library;                    // empty for a user-defined GenP
  std::vector<Expr> params;               // library parameters
  bool has_param_list = false;            // "swizzle()" vs "antidiag"
  std::vector<std::string> apply_params;  // user: lambda i, j: body
  Expr apply_body;
  std::vector<std::string> inv_params;  // user: lambda x: (e1, e2)
  std::vector<Expr> inv_body;           // empty: apply-only (injective)
  Span span;
};

enum class PieceKind { Row, Col, RegP, GenP };

struct Piece {
  PieceKind kind = PieceKind::Row;
  std::vector<Expr> dims;
  std::vector<int> perm;  // RegP only; Row/Col imply theirs
  Span perm_span;
  GenPSpec genp;  // GenP only
  // Written as CuTe(shape:stride): CuTe's notation as the user wrote it, held
  // as the equivalent Row, Col or GenP above and printed back as written.
  std::string cute;
  // Written as Atom(mma.m16n8k16.f16:A[, 2x2[, 1x2]]): an atom's TV layout
  // (thread, value) -> the tile's column-major index, held as its CuTe piece
  // and printed back as written.
  std::string atom;
  Span span;
};

struct OrderByAst {
  std::vector<Piece> pieces;
  Span span;
};

enum class Closing { GroupBy, TileBy };

struct LayoutAst {
  std::vector<OrderByAst> chain;
  Closing closing = Closing::GroupBy;
  std::vector<std::vector<Expr>> groups;  // GroupBy groups, or TileBy levels
  Span closing_span;
  std::optional<std::vector<Expr>> expand_to;  // ExpandBy(L, [n_orig..])
  Span expand_span;
  Span span;
};

// Permutation a Row/Col/RegP piece applies to its dimensions.
std::vector<int> piece_permutation(const Piece& p);

// Text in the layout language; parse(print(x)) == x. Compact is the
// canonical form ("Row(4,4)", what golden outputs hold); Readable puts a
// space after each comma ("Row(4, 4)"), as the examples are written, for
// layouts the tools write for a person (lego suggest's candidates).
enum class Spacing { Compact, Readable };
std::string print(const LayoutAst& layout, Spacing spacing = Spacing::Compact);
std::string print(const Piece& piece, Spacing spacing = Spacing::Compact);

// Structural equality, ignoring source spans.
bool equal(const LayoutAst& a, const LayoutAst& b);

}  // namespace lego
