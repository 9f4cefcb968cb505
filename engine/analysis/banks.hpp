// Shared-memory bank conflicts of warp-wide accesses. 32 banks of 4-byte
// words; lanes reading the same word share it (broadcast). A 4-byte access
// is one phase of 32 lanes; 8-byte accesses are served per half-warp and
// 16-byte accesses per quarter-warp, each lane's access covering 2 or 4
// consecutive banks. A phase needs as many wavefronts as the largest number
// of distinct words any one bank must deliver; the excess over one per phase
// is the conflict's cost.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "layout/plan.hpp"

namespace lego::analysis {

constexpr int kBanks = 32, kWarp = 32;

struct WarpAccess {
  std::array<std::int64_t, kWarp> address{};  // byte address per lane
  std::array<bool, kWarp> active{};
  int bytes = 4;  // per lane: 4, 8 or 16
};

struct ConflictReport {
  int ways = 0;        // worst bank of the worst phase: distinct words it delivers
  int wavefronts = 0;  // summed over the phases
  int phases = 0;      // 1, 2 or 4 (by access width); no conflict: wavefronts == phases
  // lane x bank: how many words lane l takes from bank b (for the heatmap)
  std::array<std::array<int, kBanks>, kWarp> lane_bank{};
  int excess() const { return wavefronts - phases; }
};

// Words per lane and bank, counted over many requests.
using LaneBankCounts = std::array<std::array<std::int64_t, kBanks>, kWarp>;
void add_lane_bank(LaneBankCounts& into, const ConflictReport& r);

// Throws LegoError for an access width other than 4, 8 or 16 or a
// misaligned address.
ConflictReport analyze(const WarpAccess& access);

// A shared buffer stored by `layout` (element_bytes each), read by a warp at
// every step: lane l at step s touches logical index element(l, s), or none
// when it returns an empty index (an inactive lane).
struct SharedAccessReport {
  int max_ways = 0;
  double mean_ways = 0;
  std::int64_t wavefronts = 0, excess_wavefronts = 0;
  LaneBankCounts lane_bank{};  // summed over steps
  int worst_step = -1;         // the first step with max_ways and, among those, the most active lanes
  LaneBankCounts worst_lane_bank{};
  std::vector<int> ways_per_step;
};
using ElementOf = std::function<std::vector<std::int64_t>(int lane, int step)>;
// `access_bytes`: each lane's request, from its element on (0: one element;
// 16 for ldmatrix's row of eight 16-bit elements).
SharedAccessReport analyze_shared(const Plan& layout, int element_bytes, int steps, const ElementOf& element, int access_bytes = 0);

// The walks a 2-D shared buffer usually sees, 32 lanes per step: along rows,
// along columns, and along anti-diagonals (NW's wavefront: lane t at row
// d - t, column t). At most max_steps steps each (a regular walk repeats).
struct WalkReport {
  std::string name;
  std::int64_t steps = 0;
  SharedAccessReport report;
};
std::vector<WalkReport> standard_walks(const Plan& layout, int element_bytes, std::int64_t max_steps = 2048);

}  // namespace lego::analysis
