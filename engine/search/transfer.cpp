#include "search/transfer.hpp"

#include <cmath>
#include <map>
#include <numeric>

namespace lego::search {

void add_kernel(Transfer& transfer, const std::string& name, const Features& searched, const Features& sibling,
                const std::vector<std::pair<kernel::Variant, double>>& timings) {
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < searched.names().size(); ++c) column.emplace(searched.names()[c], c);
  std::vector<std::size_t> to(sibling.names().size(), searched.names().size());  // past the end: no such column
  for (std::size_t c = 0; c < sibling.names().size(); ++c)
    if (const auto it = column.find(sibling.names()[c]); it != column.end()) to[c] = it->second;
  std::vector<std::vector<double>> rows;
  std::vector<double> residuals;
  double sum = 0;
  for (const auto& [variant, ms] : timings) {
    if (!(ms > 0)) continue;
    const std::vector<double> own = sibling.of(variant);
    std::vector<double> row(searched.names().size(), 0.0);
    for (std::size_t c = 0; c < own.size() && c < to.size(); ++c)
      if (to[c] < row.size()) row[to[c]] = own[c];
    rows.push_back(std::move(row));
    residuals.push_back(std::log(ms) - sibling.prior_log_ms(variant));
    sum += residuals.back();
  }
  if (rows.size() < kFewestTransferTimings) return;
  const double mean = sum / static_cast<double>(rows.size());
  for (double& r : residuals) r -= mean;
  transfer.kernels.push_back(name + " (" + std::to_string(rows.size()) + " codes)");
  transfer.rows.insert(transfer.rows.end(), rows.begin(), rows.end());
  transfer.residuals.insert(transfer.residuals.end(), residuals.begin(), residuals.end());
}

bool refutes(const PriorCorrection& correction, const std::vector<std::vector<double>>& rows, const std::vector<double>& residuals) {
  if (!correction.fitted() || residuals.empty() || rows.size() != residuals.size()) return false;
  std::vector<double> uncorrected = residuals;
  for (std::size_t k = 0; k < rows.size(); ++k) uncorrected[k] += correction.of(rows[k]);
  const auto spread = [](const std::vector<double>& r) {
    const double mean = std::accumulate(r.begin(), r.end(), 0.0) / static_cast<double>(r.size());
    return std::accumulate(r.begin(), r.end(), 0.0, [&](double sum, double x) { return sum + (x - mean) * (x - mean); });
  };
  return spread(residuals) > spread(uncorrected);
}

}  // namespace lego::search
