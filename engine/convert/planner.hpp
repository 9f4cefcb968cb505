// Planning a layout conversion: the data a CTA holds as one thread-value
// layout (FROM) redistributed as another (TO) over the same tile, by the
// cheapest of three movements, as Triton's compiler chooses for its
// convert_layout, here shown to the user with every alternative's cost:
//   - registers: each thread already holds what TO gives it; a permutation
//     of its registers (renames: no instruction once allocated);
//   - shuffles: values move between lanes of one warp, __shfl_sync rounds
//     (each lane sends one register a round, any number of lanes may read
//     it), the fewer of greedy rounds and an edge colouring of the senders x
//     receivers multigraph; a round whose lanes send or receive different
//     register indices pays selects to pick the register by lane;
//   - shared: a store of FROM into a shared buffer and a load of TO from it,
//     the buffer's layout chosen among the algebra's candidates (row, tiles,
//     padding, XOR swizzles, antidiag, skew) and the project's own, scored
//     by the engine's bank analysis on both sides with the widest vector
//     each side can use. Layouts need not be linear over GF(2): every
//     candidate is placed and analysed exhaustively.
// The cost is in issue slots per warp (the slowest warp): a shuffle, a
// shared instruction and a wavefront beyond each phase's one cost 1, a
// select 1/4 (the ALU issues four for one shuffle), a barrier 4.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/banks.hpp"
#include "atom/tv_layout.hpp"
#include "layout/candidates.hpp"

namespace lego::convert {

enum class PlanKind { Registers, Shuffles, Shared };
const char* to_string(PlanKind kind);  // "registers", "shuffles", "shared"

// The largest tile a conversion plans: what one CTA's registers can hold;
// the planner's rounds and buffer analyses are sized for that, not for a
// whole matrix.
constexpr std::int64_t kMaxConversionElements = 1 << 16;

struct Cost {
  int shuffles = 0, selects = 0;
  int shared_instructions = 0;
  std::int64_t wavefronts = 0, excess_wavefronts = 0;
  std::int64_t shared_bytes = 0;
  int syncs = 0;
  int register_moves = 0;  // renames, free: listed, not scored
  double score() const { return shuffles + selects / 4.0 + shared_instructions + static_cast<double>(excess_wavefronts) + 4.0 * syncs; }
};

// One __shfl_sync round of a warp: per lane, which lane it reads (-1: it
// receives nothing), which of its registers it sends, and which of its
// destination registers the received value fills (-1: none).
struct ShuffleRound {
  std::vector<int> source_lane, sent_value, received_value;
};

// One side of a shared round trip: the stores of FROM or the loads of TO.
struct SharedSide {
  int vector_elements = 1;                             // elements per instruction (one 4-, 8- or 16-byte access)
  int instructions = 0;                                // per thread
  std::int64_t wavefronts = 0, excess_wavefronts = 0;  // per warp, the slowest
  int worst_ways = 0;
  // The lanes x banks of the worst warp's worst instruction (the first with
  // the most ways): what the studio's heatmap of this side draws.
  analysis::LaneBankCounts worst_lane_bank{};
};

struct ConversionPlan {
  PlanKind kind = PlanKind::Shared;
  std::string name;  // "registers", "shuffles", "shared, swizzle(3,0,3)"
  bool possible = true;
  std::string why_not;  // when not possible: the first element that forbids it
  Cost cost;
  std::string reason;  // why it was chosen, or why it lost
  // registers and shuffles: [thread][TO value] = FROM value of the thread
  // that holds it (the same thread for registers; for shuffles, the lane
  // that sends it, or the thread itself for a local move)
  std::vector<std::vector<int>> source_value, source_thread;
  std::vector<std::vector<ShuffleRound>> rounds;  // shuffles: [warp][round]
  // shuffles: elements a 32-bit __shfl_sync moves. Above 1 (2- and 1-byte
  // elements), rounds come in groups of `packed` that share one shuffle:
  // round e of a group sends FROM register packed * w + e, w the group's word.
  int packed = 1;
  // shared
  CandidateLayout buffer;
  std::vector<std::int64_t> offsets;  // the tile's elements, row-major, to buffer positions
  SharedSide store, load;
};

struct ConversionOptions {
  int element_bytes = 4;
  std::vector<CandidateLayout> project_layouts;  // the project's own shared layouts of the tile's shape
};

struct ConversionReport {
  int rows = 0, cols = 0, threads = 0, values = 0, element_bytes = 4;
  std::vector<ConversionPlan> plans;  // the chosen first, then the possible by cost, then the impossible
};

// Throws LegoError when the layouts are not of the same tile, thread count
// or a supported element size (1, 2, 4 or 8 bytes).
ConversionReport plan_conversion(const atom::TvLayout& from, const atom::TvLayout& to, const ConversionOptions& options);

// Whether every thread takes its values from the same registers (a
// registers or shuffles plan): then the moves are static code.
bool same_in_every_thread(const ConversionPlan& plan);

// The plan run on an iota tile (element (r, c) is r * cols + c): empty when
// every thread ends with exactly the elements TO gives it, else the first
// that does not.
std::string check_plan(const ConversionPlan& plan, const atom::TvLayout& from, const atom::TvLayout& to);

}  // namespace lego::convert
