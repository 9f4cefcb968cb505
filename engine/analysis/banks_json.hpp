// `lego banks --json`: the standard walks of a shared buffer as JSON,
// {"bytes", "walks": [{"walk", "steps", "max_ways", "mean_ways",
// "wavefronts", "excess_wavefronts", "worst_step", "worst_lane_bank"}]},
// keys in that order. Written here, beside the walks, so the command line
// spells no report key of its own.
#pragma once

#include <string>
#include <vector>

#include "analysis/banks.hpp"

namespace lego::analysis {

std::string bank_walks_json(const std::vector<WalkReport>& walks, int element_bytes);

}  // namespace lego::analysis
