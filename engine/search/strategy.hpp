// Searches of a kernel's variant space under a budget, as `lego bench
// --strategy` runs them and `--compare-strategies` replays them:
//   exhaustive  every admitted variant in index order;
//   random      distinct admitted variants drawn by the seed;
//   model       a first random batch, then rounds of the cost model's
//               (search/model) best predictions among the unmeasured, one
//               random pick per round to keep exploring, refitting after each;
//   evolve      the best measured variants' neighbours (one axis stepped to
//               the next value or another layout), ranked by the model.
// Every strategy is deterministic for a seed: what it measures depends only
// on the seed and the times it is told. The space is walked lazily (a pool
// of at most kPoolSize candidates per round), never listed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/variant_space.hpp"
#include "search/features.hpp"

namespace lego::search {

enum class Strategy { Exhaustive, Random, Model, Evolve };
std::optional<Strategy> strategy_named(const std::string& name);
std::string name_of(Strategy s);

// 0 means no limit on that side; with neither, the search measures the
// whole space.
struct Budget {
  std::size_t evaluations = 0;
  double seconds = 0;
};

// "40" evaluations or "90s" seconds; throws LegoError otherwise.
Budget parse_budget(const std::string& text);

struct Evaluation {
  std::uint64_t index = 0;
  std::string id;
  double ms = -1;           // < 0: it failed (crashed, wrong, did not build)
  double predicted_ms = 0;  // the model's prediction when it was picked
  double at_seconds = 0;    // when its measurement landed
};

struct SearchReport {
  Strategy strategy = Strategy::Model;
  std::vector<Evaluation> history;  // in measurement order
  std::optional<std::size_t> best;  // into history: the fastest that did not fail
  std::uint64_t candidates = 0;     // the space before the constraints
  double seconds = 0;
  bool exhausted = false;  // every admitted variant was measured
  // The model's rank correlation between its predictions at pick time and
  // the times measured (model and evolve; 0 with fewer than 3 timings).
  double spearman = 0;
  std::size_t spearman_pairs = 0;  // the picks it was computed over
  // The cost model's form at the end (ridge, boosted trees, prior only) and
  // its held-out rank correlation at its last fit.
  std::string model = "prior only";
  double held_out_spearman = 0;
  std::size_t transferred = 0;  // other kernels' timings that corrected the prior (SearchOptions::transfer)
  // The search's own timings after which it dropped that correction, as
  // they spread further from it than from the prior alone; 0: kept.
  std::size_t transfer_dropped_after = 0;
};

// The own timings a search has before it judges other kernels' correction of the prior.
constexpr std::size_t kTimingsToJudgeACorrection = 3;

// Measures a batch, returning one time per variant in order (< 0: failed).
// It may return fewer, when it was stopped (a deadline): the search ends.
using MeasureBatch = std::function<std::vector<double>(const std::vector<kernel::Variant>& batch)>;
// Seconds since the search began.
using Clock = std::function<double()>;

struct Transfer;  // search/transfer.hpp

struct SearchOptions {
  Strategy strategy = Strategy::Model;
  Budget budget;
  std::uint64_t seed = 1;
  std::size_t batch = 0;  // variants per round (0: from the budget)
  // Other kernels' timings on this machine (model and evolve): a model
  // fitted on them corrects the prior before the first pick, and the
  // search's own timings correct that. Null or empty: the prior alone.
  const Transfer* transfer = nullptr;
};

constexpr std::size_t kPoolSize = 20000;

SearchReport run_search(const kernel::LazySpace& space, const Features& features, const SearchOptions& options, const MeasureBatch& measure,
                        const Clock& clock = {});

}  // namespace lego::search
