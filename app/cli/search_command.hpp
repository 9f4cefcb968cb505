// `lego bench --strategy S --budget B` and `lego bench --compare-strategies`:
// a sweep that measures what a search picks (engine/search) instead of
// every variant, and the strategies replayed on a space measured whole.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "run/sweep_driver.hpp"

namespace lego::cli {

struct SearchRequest {
  std::string project, kernel;
  std::vector<std::string> sets, only;
  std::string strategy = "model";  // exhaustive, random, model, evolve
  std::string budget;              // "40" or "90s"; empty: the whole space
  std::uint64_t seed = 1;
  bool compare = false;    // --compare-strategies
  std::size_t seeds = 20;  // --seeds: replays per strategy
  int retimings = -1;      // --retimings: times the codes are timed again before the replays; -1: by the space (below)
  std::string target;
  run::SweepOptions sweep;
  bool transfer = true;  // start model and evolve from the project's other kernels' cached timings (--no-transfer: not)
  std::string json_out;  // --json: the search's rows, winner and timings again, as a sweep's results file
};

// `--compare-strategies` times a space of at most this many codes again whole
// before its replays (--retimings), a larger one its ten fastest.
constexpr std::size_t kRetimedWhole = 48;
// The rounds of timing again when --retimings is not given: a space timed
// whole takes more, as its bar is a pick or two and a code timed slow once
// never joins the contenders below (stencil7's best pencils read 8.5 ms
// once and 3.9-4.2 ms after); the order of the near-equal best is then
// the side-by-side rounds' (transpose3d_021's four best spread 2.0-3.6 ms
// each over nine timings among all the codes).
constexpr int kWholeRetimings = 4;
constexpr int kTopRetimings = 2;
// Then the codes within kContenderMargin of the best (at least the
// kFewestContenders fastest, at most kMostContenders) are timed side by
// side, kContenderRounds times, each round's pace taken out
// (search_command.cpp: time_contenders); the rounds that timed every one
// of them must be at least kFewestContenderRounds.
// The margin is three times the 5 % bar: a code timed 12 % slow can be
// one 5 % from the best.
constexpr double kContenderMargin = 0.15;
constexpr std::size_t kFewestContenders = 6, kMostContenders = 8;
constexpr int kContenderRounds = 8;
constexpr int kFewestContenderRounds = 3;

int bench_search(const SearchRequest& request, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
