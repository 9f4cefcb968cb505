// A buffer's traced accesses scored for one placement of its elements: the
// same warp requests (or CPU accesses) with each element at the offset a
// candidate layout gives it, analysed as `lego analyze` analyses a kernel
// (banks, sectors, cache lines), plus the widest per-lane vector every
// access could use. `lego suggest` ranks candidate layouts by these scores;
// they need no worker: the trace is data.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/accesses.hpp"
#include "analysis/banks.hpp"

namespace lego::analysis {

// One traced access of a 2-D buffer, as a logical coordinate, with the
// warp request it was part of.
struct BufferAccess {
  int site;
  std::int32_t step, thread, phase, occurrence;
  std::int64_t row, column;
};

struct BufferTrace {
  std::vector<SiteInfo> sites;  // every site of the kernel (records index them)
  std::map<int, int> bytes;     // element bytes, per site of the buffer
  // Bytes one lane's access moves, per site where an instruction moves
  // more than the element (ldmatrix's 16-byte rows, cp.async's 4-16 bytes).
  std::map<int, int> access_bytes;
  std::vector<BufferAccess> accesses;
  std::int64_t columns = 0;  // the buffer's width: placements are row-major over (row, column)
};

struct PlacementScore {
  int worst_ways = -1;  // -1: no access of that kind
  double mean_ways = -1;
  std::int64_t excess_wavefronts = 0;
  double sectors_per_request = -1, lines_per_access = -1;
  int vector_elements = 1;  // the widest per-lane vector (at most 16 bytes) every access could use
  struct Site {
    std::string access;  // "smem S[c, r]"
    int line = 0, ways = 0;
    std::int64_t excess_wavefronts = 0;
  };
  std::vector<Site> sites;           // each shared access of the buffer
  LaneBankCounts worst_lane_bank{};  // the worst shared request, lanes x banks
  std::string worst_site;            // "smem S[c, r] (line 12): 4-way, lanes 0, 8, .., 24 on bank 0"
  int shared_sites = 0, global_sites = 0, host_sites = 0;
};

// `offsets`: where each element of the R x C buffer lives, row-major over
// (row, column) with trace.columns columns.
PlacementScore score_placement(const BufferTrace& trace, const std::vector<std::int64_t>& offsets);

// Why the placement cannot serve an access that moves several elements at
// once (ldmatrix's 16-byte row, a cp.async): the elements from its address
// on are not consecutive, or do not start on a boundary of the access's
// size. Empty when every such access fits.
std::string widened_access_problem(const BufferTrace& trace, const std::vector<std::int64_t>& offsets);

// The worst bank ways of the same shared accesses with 4-, 8- and 16-byte
// elements (a float, a double or float2, a float4); -1 without shared accesses.
std::array<int, 3> ways_by_width(const BufferTrace& trace, const std::vector<std::int64_t>& offsets, int worst_ways);

}  // namespace lego::analysis
