// The thread-value layouts `lego convert` reads, in the three forms a
// kernel author has them:
//   mma.m16n8k16.f16:C, [1,1], [1,2]   an atom's operand (atom/tv_spec), tiled
//   ((2,16),(8)):((128,1),(16))         CuTe's TV notation over the column-major tile
//   OrderBy(Row(32, 32))...             a LEGO layout of the tile whose offset o is
//                                       thread o / V, value o % V (V = elements / threads):
//                                       the form that is not linear (antidiag, GenPs)
//   Atom(mma.m16n8k16.f16:C, [1,1], [1,2]), CuTe(((2,16),(8)):((128,1),(16)))
//                                       the first two as the layout language wraps them
//                                       (lego table reads them so): thread-value layouts too
// The tile comes from --tile, an atom on the other side, or the LEGO
// layout's own shape.
#pragma once

#include <optional>
#include <string>

#include "atom/tv_layout.hpp"

namespace lego::convert {

enum class TvForm { Atom, Cute, Lego };

struct TvText {
  atom::TvLayout tv;
  TvForm form = TvForm::Atom;
};

// Which form `text` is written in, without reading it whole.
TvForm form_of(const std::string& text);

// An atom operand's element type as convert names it (f16, bf16, f32, tf32,
// s32, f64, s8), where `text` is an atom's form; nothing otherwise or where
// it does not name an atom (read_tv then says why).
std::optional<std::string> atom_element(const std::string& text);

// `rows`, `cols`: the tile (0: unknown, only an atom may then be given);
// `threads`: the CTA's threads for the LEGO form. Throws LegoError naming
// `what` ("FROM", "TO") and the mistake; a layout that does not hold every
// element of the tile once is refused.
TvText read_tv(const std::string& text, const std::string& what, int rows, int cols, int threads);

}  // namespace lego::convert
