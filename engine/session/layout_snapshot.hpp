// What the GUI shows of one layout, computed on the engine thread (Qt-free,
// headless): the tensor's cells and where each lands in memory, tile borders,
// the bijectivity verdicts, and the derived index expressions. Immutable once
// built; the views only draw it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "expr/expr.hpp"
#include "layout/ast.hpp"

namespace lego::session {

struct LayoutSnapshot {
  std::uint64_t generation = 0;  // the request it answers
  std::string text, bindings;    // what was asked

  bool ok = false;
  std::string error;                           // one sentence, with line:column when it has a span
  std::size_t error_begin = 0, error_end = 0;  // byte span in `text` (begin == end: no location)
  std::vector<std::string> unbound;            // sizes that need a value

  // Set when the tensor has more than kMaxCells cells: the check and the
  // expressions are there, the cell tables (and bank walks) are not.
  std::string not_drawn;

  // The tensor as indexed by its own coordinates (a TileBy layout untiled).
  std::vector<std::int64_t> shape;
  // Per tiling level (outermost first), per dimension: the extent one tile
  // of that level covers; borders are drawn at its multiples.
  std::vector<std::vector<std::int64_t>> tile_spans;
  std::vector<std::int64_t> apply;  // per cell in row-major order: physical position, -1 if dropped
  std::int64_t physical_size = 0;
  std::vector<std::int64_t> inverse;  // per physical position: the cell stored there, -1 if none
  std::vector<std::int64_t> tile;     // per cell: its outermost tile, numbered row-major over the tiles; empty when untiled

  std::string verdict;  // exhaustive check
  std::string isl;      // ISL's verdict
  std::string layout_class;
  std::string apply_code, inv_code;  // C, simplified, with the tensor coordinates i0, i1, ..
  int apply_ops = 0, inv_ops = 0;
  // How the simplifier got there: each rewrite with its rule and the side
  // condition it proved (layout/derive's ExplainedStep, as text), outer first.
  std::vector<std::string> apply_rewrites, inv_rewrites;
  // Shared-memory bank conflicts if this (2-D) layout stores a shared buffer
  // of 4-byte elements that a warp walks along rows, along columns or along
  // anti-diagonals (NW's wavefront), 32 lanes per step.
  struct BankWalk {
    std::string name;
    int max_ways = 0;
    double mean_ways = 0;
    std::int64_t steps = 0, excess_wavefronts = 0;
    int worst_step = -1;
    std::array<std::array<std::int64_t, 32>, 32> lane_bank{};  // at the worst step
  };
  std::vector<BankWalk> bank_walks;

  double ms = 0;  // time to build this snapshot
};

// Cells beyond this are not tabulated (the view would be unreadable).
constexpr std::int64_t kMaxCells = 1 << 18;

// Where physical position x lands when `threads` threads walk memory in
// order, one element each per step (the thread-map colourings): thread
// x % threads at step x / threads, its warp and lane, and the 4-byte
// shared-memory bank of x.
struct Placement {
  std::int64_t thread = 0, warp = 0, lane = 0, step = 0, bank = 0;
};
Placement place(std::int64_t x, std::int64_t threads);
// How many warps `threads` threads make (the last one may be partial).
std::int64_t warp_count(std::int64_t threads);

// What build_snapshot checks of a layout before it tabulates it: the layout
// and the view over the tensor's own coordinates both plan at these sizes.
// Throws LegoError with the reason otherwise (the composer refuses such a
// drop with it).
void check_layout(const LayoutAst& layout, const Env& env);

// Never throws for bad input: errors land in `error`.
LayoutSnapshot build_snapshot(std::uint64_t generation, const std::string& text, const std::string& bindings);

// "n=8, B=2" (commas or spaces); throws LegoError naming the bad item.
Env parse_sizes(const std::string& text);

}  // namespace lego::session
