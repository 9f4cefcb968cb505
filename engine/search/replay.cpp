#include "search/replay.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "search/model.hpp"
#include "search/transfer.hpp"

namespace lego::search {

double StrategyScore::mean_evaluations() const {
  double sum = 0;
  std::size_t n = 0;
  for (const auto& e : evaluations)
    if (e) {
      sum += static_cast<double>(*e);
      ++n;
    }
  return n ? sum / static_cast<double>(n) : -1.0;
}

double StrategyScore::quantile_evaluations(double q) const {
  std::vector<std::size_t> got;
  for (const auto& e : evaluations)
    if (e) got.push_back(*e);
  if (evaluations.empty() || !(q >= 0 && q <= 1)) return -1.0;
  std::sort(got.begin(), got.end());
  const auto rank =
      std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(q * static_cast<double>(evaluations.size()))), 1, evaluations.size());
  return rank <= got.size() ? static_cast<double>(got[rank - 1]) : -1.0;
}

std::size_t StrategyScore::reached() const {
  return static_cast<std::size_t>(std::count_if(evaluations.begin(), evaluations.end(), [](const auto& e) { return e.has_value(); }));
}

namespace {

constexpr std::size_t kSpearmanTimings = 10;  // fewer timed codes: no rank correlation worth the name

double model_spearman(const kernel::LazySpace& space, const Features& features, const std::map<std::uint64_t, double>& measured,
                      std::uint64_t seed, const Transfer* transfer) {
  // Over the correction other kernels' timings make, as the replayed model and evolve fit it (and drop it where the
  // training timings refute it).
  PriorCorrection correction = correction_of(transfer);
  std::vector<std::pair<std::uint64_t, double>> timed;
  for (const auto& [i, ms] : measured)
    if (ms > 0) timed.push_back({i, ms});
  if (timed.size() < kSpearmanTimings) return 0;
  std::mt19937_64 rng(seed);
  std::shuffle(timed.begin(), timed.end(), rng);
  const std::size_t train = std::max<std::size_t>(3, timed.size() / 10);
  std::vector<std::vector<double>> rows;
  std::vector<double> residuals;
  for (std::size_t k = 0; k < train; ++k) {
    const kernel::Variant v = space.candidate(timed[k].first);
    rows.push_back(features.of(v));
    residuals.push_back(std::log(timed[k].second) - features.prior_log_ms(v) - correction.of(rows.back()));
  }
  if (residuals.size() >= kTimingsToJudgeACorrection && refutes(correction, rows, residuals)) {
    for (std::size_t k = 0; k < rows.size(); ++k) residuals[k] += correction.of(rows[k]);
    correction = {};
  }
  CostModel model;
  model.fit(rows, residuals, features.raw_columns());
  std::vector<double> predicted, actual;
  for (std::size_t k = train; k < timed.size(); ++k) {
    const kernel::Variant v = space.candidate(timed[k].first);
    const std::vector<double> row = features.of(v);
    predicted.push_back(features.prior_log_ms(v) + correction.of(row) + model.residual(row));
    actual.push_back(std::log(timed[k].second));
  }
  return spearman(predicted, actual);
}

}  // namespace

ReplayReport replay(const kernel::LazySpace& space, const Features& features, const std::map<std::uint64_t, double>& measured_variants,
                    const std::vector<Strategy>& strategies, const std::vector<std::uint64_t>& seeds, Budget budget,
                    const Transfer* transfer) {
  // One time per code class, kept under its first variant's index (which
  // the model's Spearman takes the features of): the strategies measure
  // each class once, and random search's bar counts classes.
  std::map<std::uint64_t, double> measured;
  std::map<std::uint64_t, std::uint64_t> class_of;  // the class -> the variant that stands for it
  for (const auto& [i, ms] : measured_variants)
    if (class_of.emplace(space.code_class(i), i).second) measured[i] = ms;
  ReplayReport report;
  report.space = measured.size();
  for (const auto& [i, ms] : measured)
    if (ms > 0 && (report.best_ms <= 0 || ms < report.best_ms)) report.best_ms = ms;
  const double target = report.best_ms * 1.05;
  for (const auto& [i, ms] : measured)
    if (ms > 0 && ms <= target) ++report.within;
  for (const Strategy s : strategies) {
    StrategyScore score;
    score.strategy = s;
    for (const std::uint64_t seed : seeds) {
      std::size_t count = 0;
      std::optional<std::size_t> reached;
      const MeasureBatch lookup = [&](const std::vector<kernel::Variant>& batch) {
        std::vector<double> times;
        if (reached) return times;  // within 5 %: this replay has its answer, the rest is not needed
        for (const auto& v : batch) {
          const auto index = space.index_of(v);
          const auto stands_for = index ? class_of.find(space.code_class(*index)) : class_of.end();
          const auto it = stands_for != class_of.end() ? measured.find(stands_for->second) : measured.end();
          const double ms = it == measured.end() ? -1.0 : it->second;
          times.push_back(ms);
          ++count;
          if (!reached && ms > 0 && ms <= target) reached = count;
        }
        return times;
      };
      // A replay's clock is the evaluation count: no budget in seconds.
      const SearchReport r = run_search(space, features, {s, {budget.evaluations, 0}, seed, 0, transfer}, lookup, [] { return 0.0; });
      score.evaluations.push_back(reached);
      score.best_ms.push_back(r.best ? r.history[*r.best].ms : -1.0);
    }
    report.scores.push_back(std::move(score));
  }
  const auto timed = static_cast<std::size_t>(std::count_if(measured.begin(), measured.end(), [](const auto& m) { return m.second > 0; }));
  report.spearman_known = !seeds.empty() && timed >= kSpearmanTimings;
  double sum = 0;
  if (report.spearman_known)
    for (const std::uint64_t seed : seeds) sum += model_spearman(space, features, measured, seed, transfer);
  report.spearman = report.spearman_known ? sum / static_cast<double>(seeds.size()) : 0;
  return report;
}

}  // namespace lego::search
