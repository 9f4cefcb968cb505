#include "analysis/banks_json.hpp"

#include <nlohmann/json.hpp>

namespace lego::analysis {

std::string bank_walks_json(const std::vector<WalkReport>& walks, int element_bytes) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& w : walks) {
    nlohmann::ordered_json lane_bank = nlohmann::ordered_json::array();
    for (const auto& row : w.report.worst_lane_bank) lane_bank.push_back(row);
    list.push_back({{"walk", w.name},
                    {"steps", w.steps},
                    {"max_ways", w.report.max_ways},
                    {"mean_ways", w.report.mean_ways},
                    {"wavefronts", w.report.wavefronts},
                    {"excess_wavefronts", w.report.excess_wavefronts},
                    {"worst_step", w.report.worst_step},
                    {"worst_lane_bank", lane_bank}});
  }
  return nlohmann::ordered_json{{"bytes", element_bytes}, {"walks", list}}.dump();
}

}  // namespace lego::analysis
