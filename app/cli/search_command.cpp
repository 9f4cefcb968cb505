#include "search_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <unordered_set>

#include "bindings.hpp"
#include "command_line.hpp"
#include "kernel/variant_key.hpp"
#include "kernel/variant_space.hpp"
#include "run/atomic_file.hpp"
#include "run/jit.hpp"
#include "run/outcome.hpp"
#include "run/protocol.hpp"
#include "run/search_batch.hpp"
#include "run/side_by_side.hpp"
#include "run/sweep.hpp"
#include "run/sweep_driver.hpp"
#include "run/transfer.hpp"
#include "search/replay.hpp"
#include "search/strategy.hpp"
#include "side_by_side_text.hpp"
#include "space_options.hpp"

namespace lego::cli {
namespace {

// The admitted variants: counted when the space is small enough to walk,
// else estimated from a sample (`estimated` is true then). A search
// measures each code class once, so `distinct` counts those (walked spaces
// only; an estimate counts variants).
struct SpaceCount {
  double admitted = 0, distinct = 0;
  bool estimated = false;
};

SpaceCount admitted_count(const kernel::LazySpace& space) {
  constexpr std::uint64_t kWalked = std::uint64_t{1} << 20;
  SpaceCount c;
  if (space.candidates() <= kWalked) {
    std::unordered_set<std::uint64_t> classes;
    for (std::uint64_t i = 0; i < space.candidates(); ++i)
      if (space.admitted(i)) {
        ++c.admitted;
        classes.insert(space.code_class(i));
      }
    c.distinct = static_cast<double>(classes.size());
    return c;
  }
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<std::uint64_t> pick(0, space.candidates() - 1);
  double kept = 0;
  for (int k = 0; k < 10000; ++k) kept += space.admitted(pick(rng)) ? 1 : 0;
  c.admitted = c.distinct = kept / 10000.0 * static_cast<double>(space.candidates());
  c.estimated = true;
  return c;
}

// Runs batches of variants as `lego bench` runs a sweep, keeping every
// outcome; a variant's time is its median when it verified (can_win), else -1.
struct Measurer {
  run::WorkerClient& worker;
  const kernel::KernelSpec& spec;
  const run::Roof& roof;
  run::SweepOptions options;
  std::atomic<bool>& cancel;
  std::ostream& err;
  std::vector<run::Outcome> outcomes;
  bool first = true;
  std::set<std::string> cached;  // the variants whose results came from the results cache, not a run

  std::vector<double> operator()(const std::vector<kernel::Variant>& batch) {
    run::SweepOptions o = options;
    o.baselines = options.baselines && first;
    o.side_by_side_rounds = 0;
    first = false;
    run::SweepEvents events;
    events.note = [&](const std::string& m) { err << m << "\n"; };
    run::BatchRun ran = run::run_batch(worker, spec, batch, roof, o, events, &cancel);
    outcomes.insert(outcomes.end(), ran.swept.outcomes.begin(), ran.swept.outcomes.end());
    for (const run::Outcome& outcome : ran.swept.outcomes)
      if (outcome.cached) cached.insert(outcome.id);
    return ran.times;
  }
};

void print_report(const search::SearchReport& r, const SpaceCount& space, std::ostream& out) {
  // As wide as the longest id (matmul's run past 100 characters), so the times stay in a column.
  std::size_t width = 31;
  for (const auto& e : r.history) width = std::max(width, e.id.size());
  out << fmt::format("{:<4} {:<{}} {:>10} {:>12}\n", "#", "variant (in the order measured)", width, "ms", "predicted");
  for (std::size_t k = 0; k < r.history.size(); ++k) {
    const auto& e = r.history[k];
    out << fmt::format("{:<4} {:<{}} {:>10} {:>12}{}\n", k + 1, e.id, width, e.ms > 0 ? fmt::format("{:.4g}", e.ms) : std::string("failed"),
                       fmt::format("{:.3g}", e.predicted_ms), r.best && *r.best == k ? "  <- best" : "");
  }
  const double fraction = space.distinct > 0 ? static_cast<double>(r.history.size()) / space.distinct : 0;
  // The count is of codes: a variant that compiles to another's code is that code's timing, never measured apart.
  const std::string shared = space.admitted > space.distinct ? fmt::format(" (the other {:.0f} variants compile to one of their codes)",
                                                                           space.admitted - space.distinct)
                                                             : "";
  out << fmt::format("strategy {}: measured {} of the {}{:.0f} variants of distinct code ({:.1f}%) in {:.1f} s{}{}\n",
                     search::name_of(r.strategy), r.history.size(), space.estimated ? "about " : "", space.distinct, 100 * fraction,
                     r.seconds, r.exhausted ? "; every variant measured" : "", shared);
  if (r.best)
    out << fmt::format("best found: {} at {:.4g} ms\n", r.history[*r.best].id, r.history[*r.best].ms);
  else
    out << "best found: none verified\n";
  if (r.transfer_dropped_after > 0)
    out << fmt::format(
        "transfer: dropped after {} timings, which the other kernels' correction fitted worse than the prior alone; the search went on "
        "from the prior and its own timings\n",
        r.transfer_dropped_after);
  if (r.strategy == search::Strategy::Model || r.strategy == search::Strategy::Evolve) {
    // A rank correlation of a handful of picks says nothing: n/a below 8.
    if (r.spearman_pairs < 8)
      out << fmt::format("model: {}; Spearman n/a ({} pick{} made with a fitted model; 8 are needed)\n", r.model, r.spearman_pairs,
                         r.spearman_pairs == 1 ? "" : "s");
    else
      out << fmt::format("model: {}, Spearman {:.2f} between its predictions and the times of the {} picks it then measured\n", r.model,
                         r.spearman, r.spearman_pairs);
  }
}

void print_replay(const search::ReplayReport& r, std::size_t seeds, std::size_t budget_evaluations, std::ostream& out) {
  out << fmt::format(
      "replayed on {} measured variants of distinct code, best {:.4g} ms, {} within 5% of it; evaluations to come within 5%, mean over {} "
      "seeds:\n",
      r.space, r.best_ms, r.within, seeds);
  // The bar is random search's exact expectation: a mean over a few seeds
  // of a geometric-like count scatters by about itself. Under an evaluation
  // budget the means only count the seeds that got there, so the bar is
  // then the random runs, truncated the same way.
  const bool truncated = budget_evaluations > 0 && budget_evaluations < r.space;
  const auto random_score =
      std::find_if(r.scores.begin(), r.scores.end(), [](const search::StrategyScore& s) { return s.strategy == search::Strategy::Random; });
  const bool random_replayed = random_score != r.scores.end();
  const double random = truncated && random_replayed ? random_score->mean_evaluations() : r.random_expected();
  // The median and the 90th percentile beside the mean: a strategy that is
  // quick on most seeds and lost on a few shows as such.
  out << fmt::format("{:<12} {:>12} {:>7} {:>7} {:>9} {:>12}\n", "strategy", "evaluations", "median", "90%", "reached", "vs random");
  if (!truncated) out << fmt::format("{:<12} {:>12.1f} {:>7} {:>7} {:>9} {:>12}\n", "random*", random, "", "", "exact", "1.00x");
  // A quantile that falls among the seeds that never got there: more than the budget.
  const auto count = [&](double n) {
    return n >= 0 ? fmt::format("{:.0f}", n) : truncated ? fmt::format(">{}", budget_evaluations) : std::string("-");
  };
  // Under a budget a mean counts only the seeds that got there, so two
  // means compare only where both strategies got there on every seed: a
  // strategy that reached on all of them is not worse than one that reached
  // on a lucky few with fewer evaluations.
  const std::size_t random_reached = random_replayed ? random_score->reached() : 0;
  bool withheld = false;
  for (const auto& s : r.scores) {
    const double mean = s.mean_evaluations();
    const bool comparable = !truncated || (s.reached() == s.evaluations.size() && random_reached == s.evaluations.size());
    withheld = withheld || (mean > 0 && !comparable);
    out << fmt::format("{:<12} {:>12} {:>7} {:>7} {:>6}/{:<2} {:>12}\n", search::name_of(s.strategy),
                       mean < 0 ? std::string("-") : fmt::format("{:.1f}", mean), count(s.quantile_evaluations(0.5)),
                       count(s.quantile_evaluations(0.9)), s.reached(), s.evaluations.size(),
                       mean > 0 && random > 0 && comparable ? fmt::format("{:.2f}x", random / mean) : std::string("-"));
  }
  if (r.spearman_known)
    out << fmt::format(
        "model: Spearman {:.2f} between its predictions and the times, fitted on a random tenth (at least 3) and ranking the rest\n",
        r.spearman);
  else
    out << "model: Spearman n/a (under 10 codes timed: too few to fit on a tenth and rank the rest)\n";
  if (truncated)
    out << fmt::format(
        "(within a budget of {} evaluations the means count the seeds that got there, the median and 90% all the seeds; \"vs "
        "random\" is random's mean over the strategy's{})\n",
        budget_evaluations, withheld ? ", given only where both got there on every seed: else compare \"reached\"" : "");
  else
    out << fmt::format(
        "(random* is random search's exact expectation, ({} + 1) / ({} + 1); \"vs random\" is it over the strategy's "
        "mean: above 1.00x the strategy needed fewer)\n",
        r.space, r.within);
}

// The indices into `history` of its `count` fastest timed evaluations, fastest
// first. With `space`, one per code: the variants of one code class are one
// code, and so are two whose times are exactly equal, for that is a code the
// results cache (keyed by code) served to both (code classes are sound, not
// complete). Timing it again would time the same code twice.
std::vector<std::size_t> fastest(const std::vector<search::Evaluation>& history, std::size_t count,
                                 const kernel::LazySpace* space = nullptr) {
  std::vector<std::size_t> timed;
  for (std::size_t k = 0; k < history.size(); ++k)
    if (history[k].ms > 0) timed.push_back(k);
  std::stable_sort(timed.begin(), timed.end(), [&](std::size_t a, std::size_t b) { return history[a].ms < history[b].ms; });
  std::vector<std::size_t> top;
  std::unordered_set<std::uint64_t> classes;
  for (const std::size_t k : timed) {
    if (top.size() == count) break;
    if (!space) {
      top.push_back(k);
      continue;
    }
    const bool same_time = !top.empty() && history[top.back()].ms == history[k].ms;  // sorted: an equal time is the last one kept
    if (classes.insert(space->code_class(history[k].index)).second && !same_time) top.push_back(k);
  }
  return top;
}

// One line per timed baseline, named as the table names it.
void print_baselines(const std::vector<run::Outcome>& outcomes, const std::string& kernel, const std::string& when, std::ostream& out) {
  for (const run::Outcome& o : outcomes)
    if (o.baseline && o.ms > 0)
      out << fmt::format("baseline {}: {:.4g} ms ({})\n", kernel::key_of_row(kernel, o.id, true).name, o.ms, when);
}

// The variants timed again, fresh: the cache is neither read nor written, so
// it keeps what the first timing found. `beside_baselines` (a search's best
// codes): in one batch with the baselines, and the fastest of them then side
// by side with each baseline in the sweep's alternating rounds (--rounds).
// The search's first timings and the baselines' (its first batch) are
// minutes apart, and this machine's pace drifts 1.5-2x in minutes: a
// search's best read 35.75 ms against an OpenBLAS timed at 11.39 ms at the
// start.
run::BatchRun time_fresh(const Measurer& like, const std::vector<kernel::Variant>& variants, bool beside_baselines) {
  run::SweepOptions o = like.options;
  o.run.cache = false;
  o.run.store = false;
  if (!beside_baselines) {
    o.baselines = false;
    o.side_by_side_rounds = 0;
  }
  run::SweepEvents events;
  events.note = [&](const std::string& m) { like.err << m << "\n"; };
  return run::run_batch(like.worker, like.spec, variants, like.roof, o, events, &like.cancel);
}

// How much slower (above 1) the machine runs now than when `history` was
// timed: the median ratio of `second` to the first timing over the controls,
// the entries of `ranked` from `first_control` on. None where fewer than
// kFewestControls timed twice: a ratio or two measures the codes' own luck
// (a code among two controls moves half its luck onto the other).
constexpr std::size_t kFewestControls = 5;
// Each timed entry's `second` over its first timing, from `first` on.
std::vector<double> ratios_to_first(const std::vector<search::Evaluation>& history, const std::vector<std::size_t>& ranked,
                                    const std::vector<double>& second, std::size_t first) {
  std::vector<double> ratios;
  for (std::size_t n = first; n < ranked.size() && n < second.size(); ++n)
    if (second[n] > 0 && history[ranked[n]].ms > 0) ratios.push_back(second[n] / history[ranked[n]].ms);
  return ratios;
}
std::optional<double> pace_drift(const std::vector<search::Evaluation>& history, const std::vector<std::size_t>& ranked,
                                 const std::vector<double>& second, std::size_t first_control) {
  std::vector<double> ratios = ratios_to_first(history, ranked, second, first_control);
  if (ratios.size() < kFewestControls) return std::nullopt;
  return run::median_of(std::move(ratios));
}

// Every variant of `e`'s code (its class, or the cache's time exactly: a
// code the cache served to both) takes `ms`; a failed one stays failed.
void keep_for_its_code(const kernel::LazySpace& space, const search::SearchReport& all, const search::Evaluation& e, double ms,
                       std::map<std::uint64_t, double>& measured) {
  const std::uint64_t code = space.code_class(e.index);
  for (const search::Evaluation& twin : all.history)
    if (twin.ms > 0 && (space.code_class(twin.index) == code || twin.ms == e.ms)) measured[twin.index] = ms;
}

// The bar is the best time, and one timing can be luck: a quiet second made
// a transpose_space variant 0.39 ms once and 0.53-0.55 ms in every run
// after, so that nothing else came within 5 % of it. In a space of more
// than kRetimedWhole codes the ten fastest are timed again, fresh,
// `retimings` times, with the next ten beside them as controls: this
// machine's pace drifts (the same copy ran 1.5-2x apart within minutes), so
// the controls' median ratio of new to first timing measures each round's
// drift, and a new timing divided by it is the time at the pace the rest of
// the space was timed at. Each of the ten keeps the median of its timings,
// the upper middle of an even count (the ten were chosen for being fast, so
// a lucky first timing is what this guards against): with one new timing,
// matmul's ten fastest (81-107 ms, within the noise of each other) left one
// or two codes within 5 % of a best that was luck.
//
// Luck runs both ways: a slow moment made stencil7's row-major pencils of 16
// rows 8.5 ms once, and 3.9-4.2 ms in every timing after, and a code timed
// slow never joined the ten, so the model that ranked it first was charged a
// pick that missed. A space of at most kRetimedWhole timed codes, where the
// bar is a pick or two, is timed again whole, each code a control of the
// pace and keeping the plain median of its timings; every other round runs
// the codes slowest first, so that a drift within a round does not line up
// with their rank. Every variant of a code timed again takes its median.
void time_again(const Measurer& measurer, const kernel::LazySpace& space, const search::SearchReport& all, int retimings,
                std::map<std::uint64_t, double>& measured, std::ostream& err) {
  const std::vector<std::size_t> codes = fastest(all.history, kRetimedWhole + 1, &space);
  const bool whole = codes.size() <= kRetimedWhole;
  if (retimings < 0) retimings = whole ? kWholeRetimings : kTopRetimings;
  if (retimings == 0 || codes.size() < 2) return;
  // A larger space: its ten fastest and the next ten as controls (codes holds kRetimedWhole + 1 > 20).
  const std::vector<std::size_t> ranked(codes.begin(), whole ? codes.end() : codes.begin() + 20);
  const std::size_t top = whole ? ranked.size() : std::min<std::size_t>(10, ranked.size());
  std::vector<kernel::Variant> again;
  for (const std::size_t k : ranked) again.push_back(space.candidate(all.history[k].index));
  std::vector<std::vector<double>> at_first_pace(top);
  for (std::size_t n = 0; n < top; ++n) at_first_pace[n].push_back(all.history[ranked[n]].ms);
  for (int round = 1; round <= retimings; ++round) {
    const bool slowest_first = whole && round % 2 == 0;
    std::vector<kernel::Variant> batch = again;
    if (slowest_first) std::reverse(batch.begin(), batch.end());
    const std::vector<double> times = time_fresh(measurer, batch, false).times;
    std::vector<double> second(again.size(), -1);  // in rank order; -1 where it failed or was not reached
    for (std::size_t k = 0; k < times.size() && k < again.size(); ++k) second[slowest_first ? again.size() - 1 - k : k] = times[k];
    const std::optional<double> drift = pace_drift(all.history, ranked, second, whole ? 0 : top);
    const std::string pace =
        drift ? fmt::format("{:.2f}x the first timings", *drift)
              : fmt::format("too few timed ({} are needed) to tell, so this round's timings are not corrected", kFewestControls);
    if (whole)
      err << fmt::format("timing again ({} of {}) the space's {} codes{}, each a control of the machine's pace: {}\n", round, retimings,
                         top, slowest_first ? ", slowest first" : "", pace);
    else
      err << fmt::format("timing again ({} of {}) the {} fastest codes, and the next {} as controls of the machine's pace: {}\n", round,
                         retimings, top, ranked.size() - top, pace);
    for (std::size_t n = 0; n < top; ++n)
      if (second[n] > 0) at_first_pace[n].push_back(second[n] / drift.value_or(1.0));
  }
  for (std::size_t n = 0; n < top; ++n) {
    const search::Evaluation& e = all.history[ranked[n]];
    const std::vector<double>& times = at_first_pace[n];
    if (times.size() < 2) {
      err << fmt::format("timed again: {} failed each time; keeps its first timing, {:.4g} ms\n", e.id, e.ms);
      continue;
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const double median = whole ? run::median_of(sorted) : sorted[sorted.size() / 2];
    std::string said;
    for (std::size_t t = 1; t < times.size(); ++t) said += fmt::format("{}{:.4g}", t > 1 ? ", " : "", times[t]);
    const std::size_t failed = static_cast<std::size_t>(retimings) + 1 - times.size();
    err << fmt::format("timed again: {} {} ms at the first pace{} (first {:.4g} ms): median {:.4g} ms\n", e.id, said,
                       failed ? fmt::format(", {} failed", failed) : std::string(), e.ms, median);
    keep_for_its_code(space, all, e, median, measured);
  }
}

// The codes near the best, timed side by side. Timed again round by round
// among all the codes, the near-equal best of a space stay apart by luck:
// transpose4d_1302's five best medians (2.63-2.80 ms after nine timings)
// were each a spread of 2.0-3.4 ms, and where a round's pace moved while
// it ran, its fast codes all read 2.0-2.2 ms (timed last) or 2.4-3.6 ms
// (timed first). So the codes within kContenderMargin of the best, and at
// least the kFewestContenders fastest (the best's own median can be luck:
// 4d_1302's read 2.14 ms and side by side it was 5 % slower than the
// fifth), are then timed one after another, `rounds` times, each round's
// order the last one's reversed. A code's time in a round is divided by
// that round's median of them, which takes out the pace the round ran at,
// and its median ratio times the contenders' median of their medians (the
// level timed among all the codes) is its time. A code that failed in most
// rounds keeps its time and paces none; otherwise a round where one failed
// is not used.
void time_contenders(const Measurer& measurer, const kernel::LazySpace& space, const search::SearchReport& all, int rounds,
                     std::map<std::uint64_t, double>& measured, std::ostream& err) {
  std::vector<std::size_t> codes = fastest(all.history, all.history.size(), &space);
  std::stable_sort(codes.begin(), codes.end(),
                   [&](std::size_t a, std::size_t b) { return measured.at(all.history[a].index) < measured.at(all.history[b].index); });
  if (rounds == 0 || codes.size() < 2) return;
  const double best = measured.at(all.history[codes.front()].index);
  std::vector<std::size_t> near;
  for (const std::size_t k : codes)
    if (near.size() < kFewestContenders ||
        (near.size() < kMostContenders && measured.at(all.history[k].index) <= best * (1 + kContenderMargin)))
      near.push_back(k);
  if (near.size() < 2) return;
  std::vector<kernel::Variant> contenders;
  std::vector<double> level;
  for (const std::size_t k : near) {
    contenders.push_back(space.candidate(all.history[k].index));
    level.push_back(measured.at(all.history[k].index));
  }
  std::vector<std::vector<double>> rounds_times;  // in rank order
  for (int round = 1; round <= rounds && !measurer.cancel; ++round) {
    const bool reversed = round % 2 == 0;
    std::vector<kernel::Variant> batch = contenders;
    if (reversed) std::reverse(batch.begin(), batch.end());
    std::vector<double> times = time_fresh(measurer, batch, false).times;
    times.resize(batch.size(), -1);
    if (reversed) std::reverse(times.begin(), times.end());
    const bool complete = std::all_of(times.begin(), times.end(), [](double ms) { return ms > 0; });
    err << fmt::format("side by side ({} of {}) the {} fastest codes{}{}\n", round, rounds, near.size(), reversed ? ", in reverse" : "",
                       complete ? "" : ": one failed");
    rounds_times.push_back(std::move(times));
  }
  const run::PacedRounds paced = run::paced_by_round(rounds_times, near.size());
  if (paced.complete < kFewestContenderRounds) {
    err << fmt::format("side by side: {} of {} rounds complete ({} are needed); the codes keep their times\n", paced.complete, rounds,
                       kFewestContenderRounds);
    return;
  }
  const double at_level = run::median_of(level);
  for (std::size_t n = 0; n < near.size(); ++n) {
    const double ratio = paced.median[n];
    std::string said;
    for (std::size_t t = 0; t < paced.ratios[n].size(); ++t) said += fmt::format("{}{:.3f}", t ? ", " : "", paced.ratios[n][t]);
    const search::Evaluation& e = all.history[near[n]];
    if (paced.left_out[n]) {
      err << fmt::format("side by side: {} failed in most rounds; it keeps {:.4g} ms and paces no round\n", e.id, level[n]);
      continue;
    }
    err << fmt::format("side by side: {} {} of each round's median: median {:.3f}, so {:.4g} ms (was {:.4g} ms)\n", e.id, said, ratio,
                       ratio * at_level, level[n]);
    keep_for_its_code(space, all, e, ratio * at_level, measured);
  }
}

// The codes timed again keep their refined times beside their cached
// results (run::store_refined_ms), where the transfer reads them: a
// sibling's first timings are luckier than its refined ones (stencil7,
// replayed with stencil27's first timings: 6.2 evaluations; with its
// refined ones: 3.0). Only a time that changed, of a code the cache served
// or stored, as the sweep keyed it.
void keep_refined(const Measurer& measurer, const kernel::LazySpace& space, const search::SearchReport& all,
                  const std::map<std::uint64_t, double>& measured) {
  const run::SweepOptions& o = measurer.options;
  std::set<std::uint64_t> done;
  for (const search::Evaluation& e : all.history) {
    const auto refined = measured.find(e.index);
    if (e.ms <= 0 || refined == measured.end() || refined->second == e.ms || !done.insert(space.code_class(e.index)).second) continue;
    try {
      const kernel::Variant v = space.candidate(e.index);
      const run::PreparedVariant prepared = run::prepare_variant(measurer.spec, v, o.target);
      if (!prepared.instance) continue;
      const std::optional<kernel::Instance> small =
          o.run.verify ? run::verification_instance(measurer.spec, v, o.verify_smaller, o.target) : std::nullopt;
      run::store_refined_ms(*prepared.instance, small ? &*small : nullptr, o.run, e.ms, refined->second);
    } catch (const std::exception&) {
      // a code that does not instantiate again keeps its first timing
    }
  }
}

}  // namespace

namespace {

// One of the best, timed again fresh after the search.
struct TimedAgain {
  std::string id;
  double first_ms = -1, ms = -1;
};

// --json: the file a sweep writes (every row the search timed, the
// baselines), with the search's own account in the context: the strategy,
// its budget and seed, the order it measured in, the winner, and the best
// timed again.
void write_search_json(const SearchRequest& q, const kernel::KernelSpec& spec, const run::Roof& roof, const search::SearchReport& r,
                       const std::vector<run::Outcome>& rows, const std::vector<TimedAgain>& again, const std::string& target,
                       const run::SideBySide* side_by_side, std::ostream& err) {
  nlohmann::json results =
      run::bench_results_json({q.project, spec.name, roof, rows, run::table_order(rows), run::baseline_times(rows), target, side_by_side});
  nlohmann::json order = nlohmann::json::array(), timed_again = nlohmann::json::array();
  for (const auto& e : r.history) order.push_back({{"variant", e.id}, {"ms", e.ms}, {"predicted_ms", e.predicted_ms}});
  const TimedAgain* best_again = nullptr;
  for (const TimedAgain& t : again) {
    timed_again.push_back({{"variant", t.id}, {"first_ms", t.first_ms}, {"ms", t.ms}});
    if (t.ms > 0 && (!best_again || t.ms < best_again->ms)) best_again = &t;
  }
  nlohmann::json search = {{"strategy", search::name_of(r.strategy)},
                           {"budget", q.budget.empty() ? "the whole space" : q.budget},
                           {"seed", q.seed},
                           {"evaluations", r.history.size()},
                           {"measured", order},
                           {"timed_again", timed_again},
                           {"seconds", r.seconds}};
  search["best"] = r.best ? nlohmann::json{{"variant", r.history[*r.best].id}, {"ms", r.history[*r.best].ms}} : nlohmann::json();
  search["best_after_timing_again"] = best_again ? nlohmann::json{{"variant", best_again->id}, {"ms", best_again->ms}} : nlohmann::json();
  results["context"]["lego_search"] = search;
  run::write_atomically(q.json_out, results.dump(2) + "\n");
  err << "results written to " << q.json_out << "\n";
}

}  // namespace

int bench_search(const SearchRequest& q, std::ostream& out, std::ostream& err) {
  const auto started = std::chrono::steady_clock::now();
  const auto strategy = search::strategy_named(q.strategy);
  if (!strategy) throw LegoError("--strategy " + q.strategy + ": expected exhaustive, random, model or evolve");
  const search::Budget budget = q.budget.empty() ? search::Budget{} : search::parse_budget(q.budget);
  const kernel::Project project = kernel::load_project(q.project, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, q.kernel);
  if (spec.backend == kernel::Backend::Triton)
    throw LegoError(
        "--strategy searches by timings, and a Triton variant is not timed here (Triton's interpreter runs at no GPU's pace): "
        "lego bench without --strategy verifies every variant of " +
        spec.name);
  run::SweepOptions sweep = q.sweep;
  sweep.target = kernel::target_for(project, q.target);
  const target::Target& target = sweep.target;
  if (const std::string why = run::cannot_run_here(target); !why.empty()) throw LegoError(why);
  const Env overrides = parse_sets(q.sets);
  const std::vector<std::string> only = check_only(spec, q.only, overrides);
  check_fixed_extents(spec, overrides);
  const kernel::LazySpace space(spec, overrides, &target, only);
  const SpaceCount count = admitted_count(space);
  if (count.admitted <= 0 && !count.estimated)  // a sample finding none of a huge space proves nothing
    throw LegoError("no variant of " + spec.name + " at these sizes: " + kernel::why_no_variant(spec, target, overrides));
  const run::Roof roof = run::machine_roof(
      false, [&](const std::string& m) { err << m << "\n"; }, target.name);
  const search::Features features(space, target, search::machine_figures(roof));
  err << fmt::format("{}: {}{:.0f} variants ({} candidates{}), {} features; target {}\n", spec.name, count.estimated ? "about " : "",
                     count.admitted, space.candidates(),
                     count.distinct < count.admitted ? fmt::format(", {:.0f} of distinct code", count.distinct) : std::string(),
                     features.names().size(), target.name);
  search::Transfer transfer;
  const bool fits_a_model = *strategy == search::Strategy::Model || *strategy == search::Strategy::Evolve || q.compare;
  if (!q.transfer && fits_a_model) err << "transfer: off (--no-transfer); the prior alone\n";
  if (q.transfer && fits_a_model) {
    transfer = run::cached_transfer(project, spec, features, target, search::machine_figures(roof), sweep.run);
    std::string looked_for;  // the siblings whose cached timings were looked for, at their own sizes in the project
    for (const kernel::KernelSpec& k : project.kernels)
      if (run::transfers_to(k, spec)) looked_for += (looked_for.empty() ? "" : ", ") + k.name;
    const bool siblings = !looked_for.empty();
    std::string from, left_out;
    for (const std::string& k : transfer.kernels) from += (from.empty() ? "" : ", ") + k;
    for (const std::string& k : transfer.left_out) left_out += (left_out.empty() ? "" : ", ") + k;
    err << "transfer: "
        << (!transfer.kernels.empty() ? fmt::format("the prior corrected by {} timings of this project's other kernels of this template "
                                                    "here: {} (--no-transfer: the prior alone)",
                                                    transfer.rows.size(), from)
            : !siblings               ? std::string("no other kernel of this project has this template; the prior alone")
            : !sweep.run.cache        ? std::string("--no-cache reads no cached timings of the other kernels either; the prior alone")
            : !left_out.empty()
                ? fmt::format("this project's other kernels of this template were left out: {}; the prior alone", left_out)
                : fmt::format("the results cache holds no timings here of this project's other kernels of this template ({}, at the "
                              "sizes the project gives them; `lego bench` of one stores them); the prior alone",
                              looked_for))
        << (!transfer.kernels.empty() && !left_out.empty() ? fmt::format(" (left out: {})", left_out) : std::string())
        << (transfer.cut_short ? fmt::format(" (read for {:.0f} s; the rest left out)", run::kTransferSeconds) : std::string()) << "\n";
  }
  run::WorkerClient worker(run::default_worker_path());
  std::atomic<bool> cancel{false};
  Measurer measurer{worker, spec, roof, sweep, cancel, err, {}, true, {}};
  std::size_t measured_so_far = 0;
  const search::MeasureBatch measure = [&](const std::vector<kernel::Variant>& batch) {
    std::vector<double> times = measurer(batch);
    for (std::size_t k = 0; k < times.size(); ++k)
      // "(cached)": a whole-space measurement that is mostly cached takes seconds, one that is not takes a sweep's time.
      err << fmt::format("[{}] {} {}{}\n", ++measured_so_far, batch[k].id, times[k] > 0 ? fmt::format("{:.4g} ms", times[k]) : "failed",
                         measurer.cached.count(batch[k].id) ? " (cached)" : "");
    return times;
  };
  if (q.compare) {
    // The whole space first (the results cache makes a second run free),
    // then each strategy replayed on it.
    const search::SearchReport all = search::run_search(space, features, {search::Strategy::Exhaustive, {}, q.seed, 16}, measure);
    std::map<std::uint64_t, double> measured;
    for (const auto& e : all.history) measured[e.index] = e.ms;
    time_again(measurer, space, all, q.retimings, measured, err);
    time_contenders(measurer, space, all, q.retimings == 0 ? 0 : kContenderRounds, measured, err);
    if (measurer.options.run.store) keep_refined(measurer, space, all, measured);
    std::vector<std::uint64_t> seeds;
    for (std::uint64_t s = 0; s < q.seeds; ++s) seeds.push_back(q.seed + s);
    const search::ReplayReport r = search::replay(
        space, features, measured, {search::Strategy::Random, search::Strategy::Model, search::Strategy::Evolve}, seeds, budget, &transfer);
    print_replay(r, seeds.size(), budget.evaluations, out);
    return r.best_ms > 0 ? 0 : 1;
  }
  search::SearchReport r;
  {
    const run::Deadline deadline(budget.seconds, cancel);
    r = search::run_search(space, features, {*strategy, budget, q.seed, 0, &transfer}, measure);
  }
  print_report(r, count, out);
  if (!sweep.run.verify) {
    out << "(not verified: --no-verify; the times are of unchecked outputs)\n";
  } else if (r.best) {
    // Only a variant whose output matched the reference has a time that counts (the sweep's table says where).
    std::string sizes;
    for (const auto& [name, value] : spec.verify_at) sizes += fmt::format("{}{}={}", sizes.empty() ? "" : ", ", name, value);
    out << "verified: each time above is of a variant whose output matched the reference"
        << (sizes.empty() ? std::string(" at the sizes timed") : " at " + sizes + " (the kernel's verify_at)") << "\n";
  }
  // One timing can be luck (a quiet moment, a warm cache): the best three
  // are timed again, fresh, and the best of those is the answer.
  const std::vector<std::size_t> top = fastest(r.history, 3);
  if (!top.empty() && cancel)
    out << "(the best were not timed again, nor side by side with the baselines: the budget in seconds is spent; the baselines "
           "below were timed before the search, and this machine's pace drifts between)\n";
  std::vector<TimedAgain> again_times;
  std::optional<run::SideBySide> side_by_side;
  if (!top.empty() && !cancel) {
    std::vector<kernel::Variant> again;
    for (std::size_t k : top) again.push_back(space.candidate(r.history[k].index));
    const run::BatchRun finals = time_fresh(measurer, again, true);
    for (std::size_t n = 0; n < again.size(); ++n)
      again_times.push_back({again[n].id, r.history[top[n]].ms, n < finals.times.size() ? finals.times[n] : -1});
    std::size_t best = top.size();
    for (std::size_t n = 0; n < again.size(); ++n) {
      const double ms = n < finals.times.size() ? finals.times[n] : -1;
      out << fmt::format("timed again: {} {} (first {:.4g} ms)\n", again[n].id,
                         ms > 0 ? fmt::format("{:.4g} ms", ms) : std::string("failed"), r.history[top[n]].ms);
      if (ms > 0 && (best == top.size() || ms < finals.times[best])) best = n;
    }
    if (best < top.size()) out << fmt::format("best after timing again: {} at {:.4g} ms\n", again[best].id, finals.times[best]);
    // A shared machine's pace drifts: where the fresh timings ran far from the first ones, say so before they are compared.
    std::vector<double> paces = ratios_to_first(r.history, top, finals.times, 0);
    if (!paces.empty()) {
      const double pace = run::median_of(std::move(paces));
      constexpr double kDrift = 1.3;
      if (pace > kDrift || pace < 1 / kDrift)
        out << fmt::format(
            "(timed again at {:.2f}x the first timings: this machine's pace changed; compare these with each other and "
            "with what was timed with them, not with the first timings)\n",
            pace);
    }
    // The rounds' medians are the comparison to read; the batch's single
    // timings of the baselines only where there were no rounds.
    side_by_side = finals.swept.side_by_side;
    if (finals.swept.side_by_side)
      out << side_by_side_text(*finals.swept.side_by_side, spec.name);
    else
      print_baselines(finals.swept.outcomes, spec.name, "timed with them", out);
  } else {
    print_baselines(measurer.outcomes, spec.name, "timed before the search", out);
  }
  print_input_seeds(measurer.outcomes, sweep.run.seed, true, err);
  if (!q.json_out.empty())
    write_search_json(q, spec, roof, r, measurer.outcomes, again_times, sweep.target.name, side_by_side ? &*side_by_side : nullptr, err);
  // The search's own seconds above leave out loading the ceilings and
  // timing the best again beside the baselines: the command's whole time.
  out << fmt::format("lego bench took {:.1f} s in all (the search {:.1f} s)\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), r.seconds);
  return r.best ? 0 : 1;
}

}  // namespace lego::cli
