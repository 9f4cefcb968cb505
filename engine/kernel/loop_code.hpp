// Loop-nest code generation: {{ for NAMES in L [parallel] [simd] }} .. {{ end }}.
// The nest is poly::build_loop_nest's (ISL scans L's digits in physical
// order) held as structured lines, so the choices made when the nest closes
// change fields, not C text: a register micro-kernel steps the two inner
// loops by its tile, OpenMP collapses the leading whole-range loops, simd
// marks the innermost, and streamed stores get their fence. A layout with no
// nest (GenP pieces) is one flat loop with L.inv per element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel/microkernel.hpp"
#include "kernel/placeholder.hpp"
#include "layout/derive.hpp"
#include "poly/loop_nest.hpp"
#include "target/target.hpp"

namespace lego::kernel {

// One line of a nest, outer to inner, each opening one brace: a loop over
// its digit's whole range [0, extent), printed from these fields, or ISL's
// own line (a loop with bounds of its own, a guard, a one-iteration block).
struct LoopLine {
  std::string var;  // the loop variable; empty for guards and blocks
  bool whole = false;
  std::int64_t extent = 0, step = 1;  // whole-range loops
  std::string isl_text;               // the others
};
std::string print(const LoopLine& line);
std::vector<LoopLine> loop_lines(const poly::LoopNest& nest);

// A move {{ B[j, i] = A[i, j] }} inside a nest, with what a micro-kernel
// needs of each side: the code of its element and its strides over the loops.
struct NestMove {
  std::size_t placeholder = 0;
  std::string dst, src, dst_code, src_code;
  AccessShape dst_shape, src_shape;
  bool stream = false;
};

struct OpenNest {
  std::size_t placeholder = 0;  // the {{ for }}'s
  placeholder::For loop;
  poly::LoopNest nest;
  std::vector<LoopLine> lines;
  std::string flat_fallback;            // why there is no nest; empty when there is one
  std::int64_t flat_size = 0;           // the flat loop's iterations: L's physical size
  std::string note;                     // how the nest was made, for the variant's notes
  std::string flat_code;                // the flat loop's opening with its L.inv, printed by the caller
  std::vector<std::size_t> statements;  // placeholders inside the body, nested nests' too
  std::vector<NestMove> moves;
};

// The nest of `view` (L read with as many coordinates as the for names),
// or the reason for the flat form when `flat` was asked or ISL has none.
OpenNest open_nest(const placeholder::For& loop, std::size_t placeholder, const LayoutAst& view, const Env& parameters, bool flat);

// An access's indices that are coordinates of open nests: their definitions
// over the loop variables (innermost nest first), so the access folds onto them.
void define_nest_indices(const std::vector<OpenNest>& nests, const std::vector<std::string>& indices, DeriveRequest& request);

struct NestCode {
  std::string open, close;               // replace {{ for }} and {{ end }}
  std::optional<std::string> move_code;  // the lone move as a micro-kernel call
  bool microkernel = false;              // the source needs microkernel_prelude
  // The lone move's innermost loop is contiguous on both sides: it is marked
  // LEGO_CONTIGUOUS_MOVE, which the source needs contiguous_move_prelude for.
  bool contiguous_move = false;
  std::vector<std::string> notes;
  // The micro-kernel's loops as the nest's coordinates (-1: a loop that
  // does not advance a coordinate by one per step).
  int outer_coordinate = -1, inner_coordinate = -1;
  std::optional<TransposeChoice> transpose;
};

// `lone_move`: the body is one move and white space, and the build is not
// traced (a trace records each element's access, which a micro-kernel
// would hide): the layouts may then pick a register micro-kernel.
NestCode close_nest(const OpenNest& n, bool lone_move, const target::Target& target);

// LEGO_CONTIGUOUS_MOVE: vectorize the loop without alias checks and do not
// unroll it (Clang; GCC: ignore assumed dependences, do not unroll); nothing elsewhere.
std::string contiguous_move_prelude();

}  // namespace lego::kernel
