// What the studio's tuning view draws of a search, Qt-free so it is tested
// as data: the best time so far against evaluations and against seconds
// (one line per search), each pick's predicted time against its measured
// one, and the budget. And the model a search ended with, for the variants
// it never measured.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "search/strategy.hpp"

namespace lego::search {

struct TuningTrace {
  std::string label;  // "model, seed 1"
  Budget budget;
  std::vector<std::pair<double, double>> best_by_evaluation;     // (evaluations, best ms so far), a step per improvement
  std::vector<std::pair<double, double>> best_by_seconds;        // (seconds, best ms so far)
  std::vector<std::pair<double, double>> predicted_vs_measured;  // (predicted ms, measured ms) of every timed pick
  std::size_t failed = 0;                                        // picks that did not verify
  std::string best_id;                                           // the fastest so far, found at evaluation best_at of evaluations
  std::size_t best_at = 0, evaluations = 0;
};

TuningTrace trace_of(const SearchReport& report, Budget budget, std::uint64_t seed);

// The cost model refitted on everything `history` measured (over the
// correction `transfer`'s timings make; pass none where the search dropped
// it, SearchReport::transfer_dropped_after): a variant's predicted
// milliseconds. `features` must outlive the function.
std::function<double(const kernel::Variant&)> final_predictor(const Features& features, const kernel::LazySpace& space,
                                                              const std::vector<Evaluation>& history, const Transfer* transfer = nullptr);

}  // namespace lego::search
