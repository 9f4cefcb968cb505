// The sweep's winner timed again beside each baseline, in alternation.
//
// A sweep times its baselines first and each variant once, minutes apart.
// On a shared machine the bandwidth a copy gets swings between those
// moments (a 4096 x 1024 softmax's 32 MiB sit at the edge of a 32 MiB L3:
// its copy baseline took 0.16 to 0.33 ms within one minute), so a ratio of
// two such timings says as much about the minute as about the kernel.
// Side-by-side rounds time the winner and each baseline one after another,
// R times, alternating which goes first, and compare the medians: the
// practice LGen and Kernel Tuner follow for ratios on noisy machines.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "run/messages.hpp"
#include "run/outcome.hpp"
#include "run/worker_client.hpp"

namespace lego::run {

// One contestant: an instance to time and the worker it runs in (a
// library baseline has one of its own).
struct Contestant {
  std::string id;  // the outcome's id: a variant id or "baseline:copy"
  const kernel::Instance* instance = nullptr;
  WorkerClient* worker = nullptr;
};

struct SideBySide {
  int rounds = 0;
  std::string winner;  // its id
  double winner_ms = -1;
  struct Baseline {
    std::string id;
    double ms = -1;  // the median of its rounds; -1 when a round failed
  };
  std::vector<Baseline> baselines;
  // Baseline k's time over the winner's ("vs copy" as the table says it); 0 when either is untimed.
  double ratio(std::size_t k) const;
};

// `winner` and each of `baselines` timed `rounds` times in alternation
// (round r times the winner first when r is odd, last when even), each
// timing the median of `options.repetitions` as in the sweep; never
// verified again, never from the cache. Nullopt when cancelled or the
// winner's timing fails; a baseline that fails keeps ms -1.
// `roof` is the sweep's: a time the machine cannot reach is distrusted, as
// in the sweep (run_variant).
std::optional<SideBySide> time_side_by_side(const Contestant& winner, const std::vector<Contestant>& baselines, int rounds,
                                            const RunOptions& options, double timeout_s, const Roof& roof,
                                            const std::atomic<bool>* cancel = nullptr, const std::function<void()>& tick = {});

// The median of `times` (the mean of the middle two for an even count); -1 when empty.
double median_of(std::vector<double> times);

// Codes timed one after another in rounds, each round's pace taken out:
// `rounds[r][c]` is code c's time in round r (at most 0 where it failed).
// In each round where every code was timed, each time is divided by that
// round's median, so that a round run at a slow moment weighs as one run at
// a quick one; `ratios[c]` are code c's, `median[c]` their median. A code
// that failed in more than half the rounds is left out of every round (its
// median -1): one code that crashes should not cost the others their
// rounds. Otherwise a round with a failure is left out (its median would be
// of other codes). Fewer than two codes kept use no round.
struct PacedRounds {
  std::vector<std::vector<double>> ratios;
  std::vector<double> median;
  std::vector<bool> left_out;  // per code: failed in more than half the rounds
  int complete = 0;            // the rounds used
};
PacedRounds paced_by_round(const std::vector<std::vector<double>>& rounds, std::size_t codes);

}  // namespace lego::run
