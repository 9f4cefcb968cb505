#include "search/trace.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "search/model.hpp"
#include "search/transfer.hpp"

namespace lego::search {

TuningTrace trace_of(const SearchReport& report, Budget budget, std::uint64_t seed) {
  TuningTrace t;
  t.label = name_of(report.strategy) + ", seed " + std::to_string(seed);
  t.budget = budget;
  double best = -1;
  for (std::size_t k = 0; k < report.history.size(); ++k) {
    const Evaluation& e = report.history[k];
    if (e.ms <= 0) {
      ++t.failed;
      continue;
    }
    if (e.predicted_ms > 0) t.predicted_vs_measured.push_back({e.predicted_ms, e.ms});  // 0: not known yet (a batch in flight)
    if (best < 0 || e.ms < best) {
      best = e.ms;
      t.best_id = e.id;
      t.best_at = k + 1;
      t.best_by_evaluation.push_back({static_cast<double>(k + 1), best});
      t.best_by_seconds.push_back({e.at_seconds, best});
    }
  }
  t.evaluations = report.history.size();
  // The line runs on to the last evaluation, flat after the last improvement.
  if (best > 0 && !report.history.empty()) {
    t.best_by_evaluation.push_back({static_cast<double>(report.history.size()), best});
    t.best_by_seconds.push_back({report.history.back().at_seconds, best});
  }
  return t;
}

std::function<double(const kernel::Variant&)> final_predictor(const Features& features, const kernel::LazySpace& space,
                                                              const std::vector<Evaluation>& history, const Transfer* transfer) {
  // As the search fitted it: the other kernels' correction first (where it kept it), then its own timings over that.
  auto correction = std::make_shared<const PriorCorrection>(correction_of(transfer));
  std::vector<std::vector<double>> rows;
  std::vector<double> residuals;
  for (const auto& e : history) {
    if (e.ms <= 0) continue;
    const kernel::Variant v = space.candidate(e.index);
    rows.push_back(features.of(v));
    residuals.push_back(std::log(e.ms) - features.prior_log_ms(v) - correction->of(rows.back()));
  }
  auto model = std::make_shared<CostModel>();
  model->fit(rows, residuals, features.raw_columns());
  return [model, correction, &features](const kernel::Variant& v) { return std::exp(predicted_log_ms(*model, features, v, *correction)); };
}

}  // namespace lego::search
