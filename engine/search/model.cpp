#include "search/model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "search/trees.hpp"

namespace lego::search {

namespace {

using Matrix = std::vector<std::vector<double>>;

// Cholesky factor L of a symmetric positive definite matrix (lower, in place); false if not SPD.
bool cholesky(Matrix& a) {
  const std::size_t n = a.size();
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j][j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j][k] * a[j][k];
    if (d <= 0) return false;
    a[j][j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i][j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i][k] * a[j][k];
      a[i][j] = s / a[j][j];
    }
  }
  return true;
}

// Solves L L^T x = b.
std::vector<double> solve(const Matrix& l, std::vector<double> b) {
  const std::size_t n = l.size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= l[i][k] * b[k];
    b[i] /= l[i][i];
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= l[k][i] * b[k];
    b[i] /= l[i][i];
  }
  return b;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
    i = j + 1;
  }
  return r;
}

}  // namespace

void RidgeModel::fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& residuals) {
  *this = RidgeModel{};
  const std::size_t n = rows.size();
  if (n < 3 || residuals.size() != n) return;
  const std::size_t d = rows[0].size();
  // Standardised features, centred target: the intercept is the mean.
  mean_.assign(d, 0);
  scale_.assign(d, 0);
  for (const auto& r : rows)
    for (std::size_t j = 0; j < d; ++j) mean_[j] += r[j] / static_cast<double>(n);
  for (const auto& r : rows)
    for (std::size_t j = 0; j < d; ++j) scale_[j] += (r[j] - mean_[j]) * (r[j] - mean_[j]) / static_cast<double>(n);
  for (double& s : scale_) s = s > 1e-12 ? std::sqrt(s) : 0.0;  // a constant feature drops out
  intercept_ = std::accumulate(residuals.begin(), residuals.end(), 0.0) / static_cast<double>(n);
  lowest_ = *std::min_element(residuals.begin(), residuals.end());
  highest_ = *std::max_element(residuals.begin(), residuals.end());
  Matrix x(n, std::vector<double>(d, 0));
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) x[i][j] = scale_[j] > 0 ? (rows[i][j] - mean_[j]) / scale_[j] : 0.0;
    y[i] = residuals[i] - intercept_;
  }
  Matrix gram(d, std::vector<double>(d, 0));
  std::vector<double> xty(d, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      xty[j] += x[i][j] * y[i];
      for (std::size_t k = 0; k <= j; ++k) gram[j][k] += x[i][j] * x[i][k];
    }
  for (std::size_t j = 0; j < d; ++j)
    for (std::size_t k = 0; k < j; ++k) gram[k][j] = gram[j][k];
  // The penalty with the least leave-one-out error: residual_i / (1 - h_ii).
  double best_error = -1;
  for (const double lambda : {0.01, 0.1, 1.0, 10.0, 100.0, 1000.0}) {
    Matrix l = gram;
    for (std::size_t j = 0; j < d; ++j) l[j][j] += lambda;
    if (!cholesky(l)) continue;
    const std::vector<double> w = solve(l, xty);
    double error = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double fitted = 0;
      for (std::size_t j = 0; j < d; ++j) fitted += w[j] * x[i][j];
      const std::vector<double> hx = solve(l, x[i]);
      double h = 0;
      for (std::size_t j = 0; j < d; ++j) h += x[i][j] * hx[j];
      const double loo = (y[i] - fitted) / std::max(1e-6, 1.0 - h);
      error += loo * loo;
    }
    if (best_error < 0 || error < best_error) {
      best_error = error;
      lambda_ = lambda;
      weights_ = w;
    }
  }
  if (weights_.empty()) weights_.assign(d, 0);
  trained_on_ = n;
}

double RidgeModel::residual(const std::vector<double>& features) const {
  if (trained_on_ == 0) return 0;
  double r = intercept_;
  for (std::size_t j = 0; j < weights_.size() && j < features.size(); ++j)
    if (scale_[j] > 0) r += weights_[j] * (features[j] - mean_[j]) / scale_[j];
  // A line through a few measured codes extrapolates without bound to codes
  // far from them: after 12 of transpose2d's 44, it put a column-order code
  // that ran 403 ms at 2.46 ms (the floor, a quarter of the roofline). No correction beyond
  // those it was fitted on is believed (the trees cannot make one either).
  return std::clamp(r, lowest_, highest_);
}

namespace {

std::vector<double> columns(const std::vector<double>& row, const std::vector<std::size_t>& keep) {
  std::vector<double> out;
  out.reserve(keep.size());
  for (std::size_t c : keep) out.push_back(c < row.size() ? row[c] : 0.0);
  return out;
}

}  // namespace

void CostModel::fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& residuals,
                    const std::vector<std::size_t>& raw_columns) {
  *this = CostModel{};
  raw_ = raw_columns;
  const std::size_t n = rows.size();
  if (n < 3) return;
  std::vector<std::vector<double>> raw_rows;
  for (const auto& r : rows) raw_rows.push_back(columns(r, raw_));
  kind_ = Kind::Ridge;
  if (n >= 9) {
    // 3-fold cross-validation, folds by index: deterministic.
    std::vector<double> by_ridge(n), by_trees(n);
    for (std::size_t fold = 0; fold < 3; ++fold) {
      std::vector<std::vector<double>> train, train_raw;
      std::vector<double> y;
      for (std::size_t i = 0; i < n; ++i)
        if (i % 3 != fold) {
          train.push_back(rows[i]);
          train_raw.push_back(raw_rows[i]);
          y.push_back(residuals[i]);
        }
      RidgeModel r;
      r.fit(train, y);
      BoostedTrees t;
      t.fit(train_raw, y);
      for (std::size_t i = fold; i < n; i += 3) {
        by_ridge[i] = r.residual(rows[i]);
        by_trees[i] = t.predict(raw_rows[i]);
      }
    }
    const double ridge_score = spearman(by_ridge, residuals), trees_score = spearman(by_trees, residuals);
    kind_ = trees_score > ridge_score ? Kind::Trees : Kind::Ridge;
    held_out_ = std::max(ridge_score, trees_score);
  }
  if (kind_ == Kind::Trees) {
    auto trees = std::make_shared<BoostedTrees>();
    trees->fit(raw_rows, residuals);
    trees_ = trees;
  } else {
    ridge_.fit(rows, residuals);
  }
  trained_on_ = n;
}

double CostModel::residual(const std::vector<double>& features) const {
  switch (kind_) {
    case Kind::None:
      return 0;
    case Kind::Ridge:
      return ridge_.residual(features);
    case Kind::Trees:
      return static_cast<const BoostedTrees*>(trees_.get())->predict(columns(features, raw_));
  }
  return 0;
}

const char* CostModel::kind_name() const { return kind_ == Kind::Trees ? "boosted trees" : kind_ == Kind::Ridge ? "ridge" : "prior only"; }

double predicted_log_ms(const CostModel& model, const Features& features, const kernel::Variant& variant,
                        const PriorCorrection& correction) {
  // Never below a quarter of the roofline; without a roofline, the static penalty and the residual alone.
  const std::vector<double> row = features.of(variant);
  const double roof = features.roofline_log_ms(variant), residual = model.residual(row) + correction.of(row);
  const double estimate = roof + features.static_log_penalty(variant) + residual;
  return roof != 0 ? std::max(estimate, roof + std::log(0.25)) : estimate;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  const std::vector<double> ra = ranks({a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n)});
  const std::vector<double> rb = ranks({b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n)});
  const double mean = (static_cast<double>(n) - 1) / 2.0;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

}  // namespace lego::search
