// What a project's other kernels, timed on this machine, tell a search of
// one of them before it measures anything. The static prior prices misses,
// gathers and short vectors the same on every machine; how much each costs
// here is in the timings of the kernels the user measured before. Their
// codes become rows of the searched kernel's feature columns, matched by
// name (the same tensor, layout and parameter names: a stencil's
// in=bricks, a transpose's log2 T, the loop walk's misses), and a model
// fitted on them corrects the prior; the searched kernel's own timings then
// correct that (search/strategy). Each kernel's residuals are taken from
// their mean: what carries over is which codes run faster than the prior
// says relative to the others, not its level.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel/variant.hpp"
#include "search/features.hpp"
#include "search/model.hpp"

namespace lego::search {

struct Transfer {
  std::vector<std::vector<double>> rows;  // in the searched space's columns (Features::names)
  std::vector<double> residuals;          // log(ms) - the kernel's prior, less the kernel's mean
  std::vector<std::string> kernels;       // where they came from: "name (N codes)"
  bool cut_short = false;                 // the reading stopped at its time limit or a cancel (run/transfer)
  std::vector<std::string> left_out;      // siblings read and left out, each with why: "name (2 timed codes; 3 are needed)"
};

// A kernel with fewer timed codes than this adds nothing: its mean is its residuals.
constexpr std::size_t kFewestTransferTimings = 3;

// Adds a kernel's timed codes (`timings`: a variant of each code and its
// milliseconds) to `transfer`, each row mapped from `sibling`'s columns to
// `searched`'s by name (a column the sibling lacks is 0).
void add_kernel(Transfer& transfer, const std::string& name, const Features& searched, const Features& sibling,
                const std::vector<std::pair<kernel::Variant, double>>& timings);

// The correction `transfer`'s rows make to the prior (none for null or no rows):
// what the search, its final predictor and the replay's Spearman all fit.
inline PriorCorrection correction_of(const Transfer* transfer) {
  return transfer ? PriorCorrection(transfer->rows, transfer->residuals) : PriorCorrection{};
}

// Whether a search's own timings refute `correction`: their residuals over
// the corrected prior (`residuals`, of `rows`) spread further, each less its
// mean, than they would over the prior alone. Other kernels' timings need
// not hold here (stencil27's output in bricks of 16 ran 1.2x its rows on a
// Sapphire Rapids, stencil7's 0.9x); a search drops a correction its
// timings refute (search/strategy), and the replay's Spearman does too.
bool refutes(const PriorCorrection& correction, const std::vector<std::vector<double>>& rows, const std::vector<double>& residuals);

}  // namespace lego::search
