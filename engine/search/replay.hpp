// Strategies replayed on a space measured whole, as Kernel Tuner's
// simulation mode does: each strategy runs with each seed, "measuring" by
// looking the time up, and is scored by the evaluations it needed to come
// within 5 % of the best time of the whole space. Random search is the bar.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "search/strategy.hpp"

namespace lego::search {

struct StrategyScore {
  Strategy strategy = Strategy::Random;
  // Evaluations until a variant within 5 % of the best was measured, per
  // seed; nullopt where the budget ran out first.
  std::vector<std::optional<std::size_t>> evaluations;
  double mean_evaluations() const;  // over the seeds that got there; -1 when none did
  // The q-quantile (0.5: the median, 0.9) over all the seeds, by nearest
  // rank (the smallest count at or above a fraction q of them; of an even
  // count the lower middle), the seeds that never got there ranked last: -1
  // when that rank is one of them (under a budget: more than the budget).
  double quantile_evaluations(double q) const;
  std::size_t reached() const;
  std::vector<double> best_ms;  // the best each seed found within the budget
};

struct ReplayReport {
  std::size_t space = 0;   // code classes measured (ms > 0 or failed): variants that share code count once
  double best_ms = 0;      // the whole space's best
  std::size_t within = 0;  // code classes within 5 % of it
  // What random search needs on average, exactly: drawing without
  // replacement from `space` variants of which `within` count, the first
  // hit comes after (space + 1) / (within + 1) draws. The bar the
  // strategies are held to; the simulated random runs scatter around it.
  double random_expected() const { return static_cast<double>(space + 1) / static_cast<double>(within + 1); }
  std::vector<StrategyScore> scores;
  // The cost model fitted on a random tenth of the space (at least 3
  // timings; over the transfer's correction where one is given), ranking
  // the rest: its Spearman correlation with the times, the mean over the
  // seeds. Not computed (spearman_known false) under 10 timed codes.
  double spearman = 0;
  bool spearman_known = false;
};

// `measured`: a time for every admitted variant by index (< 0: failed), or
// for one variant of each code class (LazySpace::code_class), which the
// others of the class share. A variant none of whose class is in it counts
// as failed. `budget.evaluations` bounds
// each run (0: the whole space). `transfer`: other kernels' timings, which
// model and evolve start from (SearchOptions::transfer).
ReplayReport replay(const kernel::LazySpace& space, const Features& features, const std::map<std::uint64_t, double>& measured,
                    const std::vector<Strategy>& strategies, const std::vector<std::uint64_t>& seeds, Budget budget,
                    const Transfer* transfer = nullptr);

}  // namespace lego::search
