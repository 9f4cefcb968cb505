// Register-level building blocks a loop nest's layout selects. A template
// writes a move statement, {{ B[j, i] = A[i, j] }}, as the only statement of
// a loop nest; the engine looks at the strides both accesses have along the
// nest's two innermost loops. When one side is contiguous along the inner
// loop and the other along the outer one, the innermost tile swaps two
// dimensions: the two loops step by the register tile and a register
// transpose moves the whole tile: 4x4 with SSE or NEON; 16x16 with AVX2
// (four 8x8 register transposes whose destination rows are stored as whole
// 64-byte lines) or AVX-512, else 8x8; the widest the loops divide by.
// Otherwise the statement stays scalar and the compiler vectorizes it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "target/target.hpp"

namespace lego::kernel {

// What the engine knows of one side of a move: strides by loop variable
// (absent where the access is not affine in it) and the constant term when
// the whole offset is affine over the loops.
struct AccessShape {
  std::map<std::string, std::int64_t> strides;
  std::optional<std::int64_t> constant;
  int element_bytes = 4;
};

struct InnerLoops {
  std::string outer, inner;  // the two innermost loop variables
  std::int64_t outer_extent = 0, inner_extent = 0;
  // Steps of every loop variable, for the alignment of streamed tiles.
  std::map<std::string, std::int64_t> steps;
};

struct TransposeChoice {
  int tile = 0;  // 4, 8 or 16: both inner loops step by it
  // The tile read as rows of `src_row` stride, written as rows of `dst_row` stride.
  std::int64_t src_row = 0, dst_row = 0;
  bool stream = false;  // streaming stores: asked for and every tile's rows aligned
  std::string note;     // what was chosen and why, for the variant's notes
};

// Nullopt when no register transpose fits (the note says why in `why_not`).
// The tile is the widest the target's vectors hold that the loops divide by.
std::optional<TransposeChoice> choose_transpose(const InnerLoops& loops, const AccessShape& src, const AccessShape& dst, bool stream,
                                                const target::Target& target, std::string& why_not);

// The prelude the micro-kernels need: the target's intrinsics, each behind
// its feature macro with a portable fallback, so exported code still builds
// (slower) for another machine.
std::string microkernel_prelude(const target::Target& target);

// The call moving one tile: src and dst point at the tile's first element.
std::string transpose_call(const TransposeChoice& c, const std::string& src, const std::string& dst);

}  // namespace lego::kernel
