// What a loop's order does to the caches, before it runs: the first
// iterations of a `{{ for i, j in L }}` loop walked in L's physical order,
// each access's byte address taken from its tensor's layout, and the lines
// and pages replayed through models of the target's L1, L2 and first-level
// TLB (set-associative, least recently used). A transpose whose tile keeps
// B's lines in L1 and one whose row walk misses a line and a page per
// element have the same bytes and FLOPs; these counts tell them apart.
#pragma once

#include <cstdint>
#include <vector>

#include "layout/plan.hpp"
#include "target/target.hpp"

namespace lego::search {

// One access site of the loop body: its tensor's layout and, for each of
// the tensor's indices, which loop coordinate it is (or -1 and a constant).
struct WalkAccess {
  const Plan* layout = nullptr;
  std::vector<int> coordinate;         // per tensor index: the loop's coordinate, or -1
  std::vector<std::int64_t> constant;  // per tensor index where coordinate is -1
  int element_bytes = 4;
  // Written with streaming stores, which bypass the caches: each line is
  // one to memory, and a line a tile writes only part of is flushed part
  // by part (kernel/microkernel.hpp streams only a register transpose's rows).
  bool streamed = false;
  // Written with plain stores: a line the caches miss is read before it is
  // written (read for ownership), so it crosses the memory bus twice.
  bool written = false;
};

// The register transpose the code generator chose for the loop's move
// (kernel::Instance::RegisterTranspose): its two loops step by the tile,
// and each step moves a tile x tile block. None (tile 0): element by element.
struct WalkTile {
  int tile = 0;
  int outer = -1, inner = -1;  // the loop coordinates stepped by the tile
};

struct WalkCounts {
  std::int64_t accesses = 0;
  // Per access, averaged over the walk.
  double l1_misses = 0, l2_misses = 0, tlb_misses = 0;
  double page_walks = 0;  // the second-level TLB's misses
  // Whether the loop's innermost steps leave a vector loop: every access
  // contiguous (or fixed) along the innermost loop, or, for two accesses,
  // one contiguous along it and the other along the loop outside it, the
  // innermost loop at least 4 long (the register transposes
  // kernel/microkernel.hpp chooses then). Otherwise the body runs an element at a time.
  bool vectorizes = true;
  // The innermost loop's length: a vector loop or register transpose
  // shorter than the target's vector runs at that fraction of its width.
  std::int64_t inner_run = 0;
  // Per access: lines written by streaming stores in part (a tile row
  // narrower than a line), each flushed to memory without the rest.
  double partial_streamed_lines = 0;
  // Per access: lines written by streaming stores (among the L2 misses).
  double streamed_lines = 0;
  // Per access: L2 misses that no prefetch fetched ahead, for they did not
  // continue their page's ascending run (walk.cpp's StreamTable).
  double unprefetched_misses = 0;
  // Per access: streamed lines whose aligned 256 bytes (four lines) had no
  // other line streamed within a few tiles of them (lone), or one or two
  // (paired). A memory system may take lone lines at a fraction of its
  // bandwidth (run::Roof's lone_line_cost prices them): a register
  // transpose of 16 whose destination rows are 1 KiB apart streams only
  // lone lines, one of 32 pairs, one of 64 whole runs.
  double lone_streamed_lines = 0, paired_streamed_lines = 0;
  // Per access: streamed lines of 256-byte groups written whole whose
  // neighbouring groups no store near them wrote: runs of four lines, which
  // a memory system may also take below its pace (run::Roof's
  // quad_line_cost); a whole group beside another is part of a longer run.
  double quad_streamed_lines = 0;
};

// The L1 data cache's ways as the walk models it (walk.cpp says why): a
// page's worth of 64-byte sets on x86, so l1d / 4 KiB ways; 4 on Arm.
int l1_ways(const target::Target& target);

// The first `limit` iterations of `loop`'s physical order. Each access's
// tensor is placed in an address range of its own, page aligned. With a
// register transpose (`tile`), the code visits only the iterations where
// both its coordinates are multiples of the tile and moves the whole block
// there: the walk does the same.
WalkCounts walk(const Plan& loop, const std::vector<WalkAccess>& accesses, const target::Target& target, std::int64_t limit = 1 << 15,
                const WalkTile& tile = {});

}  // namespace lego::search
