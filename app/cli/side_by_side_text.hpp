// The lines `lego bench` prints under its table, a sweep's and a search's
// alike: the winner timed against the baselines in alternating rounds (a
// plain sweep's winner, and a search's best after it is timed again), and
// the seeds the inputs were drawn from.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "run/outcome.hpp"
#include "run/side_by_side.hpp"

namespace lego::cli {

// "side by side, N alternating rounds (medians): <winner> a ms; copy b ms (vs copy r)"
// with a newline; baselines named as the table names them (kernel `kernel`).
std::string side_by_side_text(const run::SideBySide& pairs, const std::string& kernel);

// "(verification inputs drawn from seed S; --seed S draws them again)" for
// each seed the variants' workers drew (a library baseline's worker draws
// its own, for its own check, which no --seed of a variant's failure needs);
// `given`: the --seed given (0: none). A search's --seed also seeds its draws.
void print_input_seeds(const std::vector<run::Outcome>& rows, std::uint64_t given, bool search, std::ostream& err);

}  // namespace lego::cli
