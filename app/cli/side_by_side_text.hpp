// The line `lego bench` prints for a winner timed against the baselines in
// alternating rounds: a plain sweep's winner, and a search's best after it
// is timed again.
#pragma once

#include <string>

#include "run/side_by_side.hpp"

namespace lego::cli {

// "side by side, N alternating rounds (medians): <winner> a ms; copy b ms (vs copy r)"
// with a newline; baselines named as the table names them (kernel `kernel`).
std::string side_by_side_text(const run::SideBySide& pairs, const std::string& kernel);

}  // namespace lego::cli
