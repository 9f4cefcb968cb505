#include "side_by_side_text.hpp"

#include <fmt/format.h>

#include <set>

#include "kernel/variant_key.hpp"

namespace lego::cli {

std::string side_by_side_text(const run::SideBySide& pairs, const std::string& kernel) {
  std::string line = fmt::format("side by side, {} alternating round{} (medians): {} {:.4g} ms", pairs.rounds, pairs.rounds == 1 ? "" : "s",
                                 pairs.winner, pairs.winner_ms);
  for (std::size_t k = 0; k < pairs.baselines.size(); ++k) {
    const auto& b = pairs.baselines[k];
    const std::string name = kernel::key_of_row(kernel, b.id, true).name;
    line += "; " + name +
            (b.ms > 0 ? fmt::format(" {:.4g} ms (vs {} {:.2f}x)", b.ms, name, pairs.ratio(k)) : std::string(" failed in a round"));
  }
  return line + "\n";
}

void print_input_seeds(const std::vector<run::Outcome>& rows, std::uint64_t given, bool search, std::ostream& err) {
  std::set<std::uint64_t> drawn;
  for (const auto& r : rows)
    if (!r.cached && !r.baseline && r.input_seed != 0) drawn.insert(r.input_seed);
  for (const std::uint64_t s : drawn)
    err << (given == 0 ? fmt::format("(verification inputs drawn from seed {}; --seed {} draws them again{})\n", s, s,
                                     search ? ", and seeds the search's own draws" : "")
                       : fmt::format("(verification inputs from seed {}, as --seed gave)\n", s));
}

}  // namespace lego::cli
