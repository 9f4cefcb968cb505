#include "run/side_by_side.hpp"

#include <algorithm>

#include "run/sweep.hpp"

namespace lego::run {

double SideBySide::ratio(std::size_t k) const {
  const double base = baselines.at(k).ms;
  return base > 0 && winner_ms > 0 ? base / winner_ms : 0;
}

double median_of(std::vector<double> times) {
  if (times.empty()) return -1;
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

PacedRounds paced_by_round(const std::vector<std::vector<double>>& rounds, std::size_t codes) {
  PacedRounds out;
  out.ratios.resize(codes);
  out.left_out.assign(codes, false);
  std::vector<const std::vector<double>*> whole;  // a round cancelled before it ended is not one
  for (const std::vector<double>& round : rounds)
    if (round.size() == codes) whole.push_back(&round);
  std::vector<double> kept_times;
  for (std::size_t c = 0; c < codes; ++c) {
    const auto failed = std::count_if(whole.begin(), whole.end(), [&](const std::vector<double>* round) { return (*round)[c] <= 0; });
    out.left_out[c] = 2 * static_cast<std::size_t>(failed) > whole.size();
  }
  const auto kept = static_cast<std::size_t>(std::count(out.left_out.begin(), out.left_out.end(), false));
  for (const std::vector<double>* round : whole) {
    if (kept < 2) break;
    kept_times.clear();
    for (std::size_t c = 0; c < codes; ++c)
      if (!out.left_out[c]) kept_times.push_back((*round)[c]);
    if (std::any_of(kept_times.begin(), kept_times.end(), [](double ms) { return ms <= 0; })) continue;
    ++out.complete;
    const double pace = median_of(kept_times);
    for (std::size_t c = 0; c < codes; ++c)
      if (!out.left_out[c]) out.ratios[c].push_back((*round)[c] / pace);
  }
  for (const std::vector<double>& r : out.ratios) out.median.push_back(median_of(r));
  return out;
}

std::optional<SideBySide> time_side_by_side(const Contestant& winner, const std::vector<Contestant>& baselines, int rounds,
                                            const RunOptions& options, double timeout_s, const Roof& roof, const std::atomic<bool>* cancel,
                                            const std::function<void()>& tick) {
  RunOptions timing = options;
  timing.verify = false;  // verified in the sweep; these runs only time
  timing.cache = false;   // a cached time is from another minute, which is what this avoids
  timing.store = false;   // nor does it replace the sweep's verified result with an unverified second look
  timing.want_assembly = false;
  const auto time = [&](const Contestant& c) {
    if (cancel && cancel->load()) return -1.0;
    const VariantResult r = run_variant(*c.worker, *c.instance, timing, timeout_s, roof, 0, tick, cancel);
    return r.reply.status == Status::Ok ? r.ms : -1.0;
  };
  std::vector<double> winner_times;
  std::vector<std::vector<double>> base_times(baselines.size());
  std::vector<bool> base_failed(baselines.size(), false);
  for (int round = 1; round <= rounds; ++round) {
    const bool winner_first = round % 2 == 1;
    if (winner_first) winner_times.push_back(time(winner));
    for (std::size_t k = 0; k < baselines.size(); ++k) {
      const double ms = base_failed[k] ? -1 : time(baselines[k]);
      if (ms > 0)
        base_times[k].push_back(ms);
      else
        base_failed[k] = true;
    }
    if (!winner_first) winner_times.push_back(time(winner));
    if (cancel && cancel->load()) return std::nullopt;
    if (winner_times.back() <= 0) return std::nullopt;
  }
  SideBySide out;
  out.rounds = rounds;
  out.winner = winner.id;
  out.winner_ms = median_of(winner_times);
  for (std::size_t k = 0; k < baselines.size(); ++k)
    out.baselines.push_back({baselines[k].id, base_failed[k] ? -1 : median_of(base_times[k])});
  return out;
}

}  // namespace lego::run
