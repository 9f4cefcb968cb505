#include "analysis/banks.hpp"

#include <map>
#include <set>

namespace lego::analysis {

ConflictReport analyze(const WarpAccess& access) {
  if (access.bytes != 4 && access.bytes != 8 && access.bytes != 16)
    throw LegoError("shared-memory accesses are 4, 8 or 16 bytes per lane, not " + std::to_string(access.bytes));
  ConflictReport r;
  r.phases = access.bytes / 4;
  const int lanes_per_phase = kWarp / r.phases;
  const int words = access.bytes / 4;
  for (int phase = 0; phase < r.phases; ++phase) {
    std::array<std::set<std::int64_t>, kBanks> words_in_bank;
    for (int lane = phase * lanes_per_phase; lane < (phase + 1) * lanes_per_phase; ++lane) {
      if (!access.active[static_cast<std::size_t>(lane)]) continue;
      const std::int64_t address = access.address[static_cast<std::size_t>(lane)];
      if (address < 0 || address % access.bytes != 0)
        throw LegoError("lane " + std::to_string(lane) + " reads address " + std::to_string(address) + ", not aligned to its " +
                        std::to_string(access.bytes) + "-byte access");
      for (int w = 0; w < words; ++w) {
        const std::int64_t word = address / 4 + w;
        const auto bank = static_cast<std::size_t>(word % kBanks);
        words_in_bank[bank].insert(word);
        ++r.lane_bank[static_cast<std::size_t>(lane)][bank];
      }
    }
    int worst = 0;
    for (const auto& b : words_in_bank) worst = std::max(worst, static_cast<int>(b.size()));
    r.ways = std::max(r.ways, worst);
    r.wavefronts += std::max(worst, 1);
  }
  return r;
}

void add_lane_bank(LaneBankCounts& into, const ConflictReport& r) {
  for (std::size_t l = 0; l < kWarp; ++l)
    for (std::size_t b = 0; b < kBanks; ++b) into[l][b] += r.lane_bank[l][b];
}

SharedAccessReport analyze_shared(const Plan& layout, int element_bytes, int steps, const ElementOf& element, int access_bytes) {
  SharedAccessReport out;
  std::int64_t ways_sum = 0;
  int worst_active = 0;
  for (int step = 0; step < steps; ++step) {
    WarpAccess a;
    a.bytes = access_bytes > 0 ? access_bytes : element_bytes;
    bool any = false;
    for (int lane = 0; lane < kWarp; ++lane) {
      const std::vector<std::int64_t> index = element(lane, step);
      if (index.empty()) continue;
      a.active[static_cast<std::size_t>(lane)] = true;
      a.address[static_cast<std::size_t>(lane)] = layout.apply_checked(index) * element_bytes;
      any = true;
    }
    if (!any) continue;
    const ConflictReport r = analyze(a);
    out.ways_per_step.push_back(r.ways);
    int active = 0;
    for (bool on : a.active) active += on ? 1 : 0;
    // The worst step; among equally bad ones the fullest, so the heatmap shows a whole warp.
    if (r.ways > out.max_ways || (r.ways == out.max_ways && active > worst_active)) {
      worst_active = active;
      out.max_ways = r.ways;
      out.worst_step = step;
      out.worst_lane_bank = {};
      add_lane_bank(out.worst_lane_bank, r);
    }
    ways_sum += r.ways;
    out.wavefronts += r.wavefronts;
    out.excess_wavefronts += r.excess();
    add_lane_bank(out.lane_bank, r);
  }
  if (!out.ways_per_step.empty()) out.mean_ways = static_cast<double>(ways_sum) / static_cast<double>(out.ways_per_step.size());
  return out;
}

std::vector<WalkReport> standard_walks(const Plan& plan, int element_bytes, std::int64_t max_steps) {
  std::vector<WalkReport> out;
  if (plan.rank() != 2) return out;
  const std::int64_t rows = plan.shape()[0], cols = plan.shape()[1];
  const std::int64_t row_chunks = (cols + 31) / 32, col_chunks = (rows + 31) / 32, diagonal_chunks = (std::min(rows, cols) + 31) / 32;
  struct Walk {
    const char* name;
    std::int64_t steps;
    ElementOf element;
  };
  const std::vector<Walk> walks = {
      {"rows", rows * row_chunks,
       [=](int lane, int step) -> std::vector<std::int64_t> {
         const std::int64_t r = step / row_chunks, c = (step % row_chunks) * 32 + lane;
         if (c >= cols) return {};
         return {r, c};
       }},
      {"columns", cols * col_chunks,
       [=](int lane, int step) -> std::vector<std::int64_t> {
         const std::int64_t c = step / col_chunks, r = (step % col_chunks) * 32 + lane;
         if (r >= rows) return {};
         return {r, c};
       }},
      {"anti-diagonals", (rows + cols - 1) * diagonal_chunks,
       [=](int lane, int step) -> std::vector<std::int64_t> {
         const std::int64_t d = step / diagonal_chunks, t = (step % diagonal_chunks) * 32 + lane, r = d - t;
         if (t >= cols || r < 0 || r >= rows) return {};
         return {r, t};
       }},
  };
  for (const auto& w : walks) {
    const std::int64_t steps = std::min(w.steps, max_steps);
    out.push_back({w.name, steps, analyze_shared(plan, element_bytes, static_cast<int>(steps), w.element)});
  }
  return out;
}

}  // namespace lego::analysis
