// The cost model a search ranks with: log(time) = the roofline's prior
// (Features::prior_log_ms) + a ridge regression on the variant's features,
// fitted to what has been measured. Ridge because the searches fit it on a
// few dozen timings of spaces with dozens of features: the penalty keeps it
// from chasing noise, its strength is chosen by leave-one-out error (exact
// for ridge, no refits), and it refits in microseconds each round. With
// nothing measured it is the prior alone.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "search/features.hpp"

namespace lego::search {

class RidgeModel {
 public:
  // rows: features of the measured variants; residuals: log(measured ms) -
  // their prior. Fewer than 3 rows leave the model at zero (the prior).
  void fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& residuals);
  // The fitted residual for a variant's features (0 before a fit), within
  // the range of the residuals it was fitted on.
  double residual(const std::vector<double>& features) const;
  double lambda() const { return lambda_; }
  std::size_t trained_on() const { return trained_on_; }

 private:
  std::vector<double> mean_, scale_, weights_;
  double intercept_ = 0, lambda_ = 0, lowest_ = 0, highest_ = 0;
  std::size_t trained_on_ = 0;
};

// The model a search ranks with: ridge or boosted trees (search/trees),
// whichever ranks held-out timings better. Chosen at each fit by 3-fold
// cross-validation (Spearman over the pooled held-out predictions), so a
// smooth space keeps the ridge and a jagged one moves to the trees. The
// trees see the raw columns only (layout one-hots and log2 parameters):
// they find interactions themselves, and fewer columns keep them fast.
class CostModel {
 public:
  enum class Kind { None, Ridge, Trees };
  void fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& residuals, const std::vector<std::size_t>& raw_columns);
  double residual(const std::vector<double>& features) const;
  Kind kind() const { return kind_; }
  const char* kind_name() const;
  // The chosen form's held-out rank correlation at the last fit (0 below 9 timings).
  double held_out_spearman() const { return held_out_; }
  std::size_t trained_on() const { return trained_on_; }

 private:
  Kind kind_ = Kind::None;
  RidgeModel ridge_;
  std::shared_ptr<const void> trees_;  // BoostedTrees, kept opaque here
  std::vector<std::size_t> raw_;
  double held_out_ = 0;
  std::size_t trained_on_ = 0;
};

// The correction other kernels' timings make to the prior (search/transfer):
// a ridge fitted once on their rows, 0 everywhere when there are none. A
// ridge, not CostModel's cross-validated choice: other kernels' rows cover
// the columns they share unevenly, and a choice by folds of them turned on
// their order (stencil27_points' first pick was its best or its third as
// the other stencils came in one order or another).
class PriorCorrection {
 public:
  PriorCorrection() = default;
  PriorCorrection(const std::vector<std::vector<double>>& rows, const std::vector<double>& residuals) { ridge_.fit(rows, residuals); }
  bool fitted() const { return ridge_.trained_on() > 0; }
  // For a variant's features (Features::of).
  double of(const std::vector<double>& features) const { return fitted() ? ridge_.residual(features) : 0.0; }

 private:
  RidgeModel ridge_;
};

// A variant's predicted log(ms): its roofline prior plus the model's
// residual, never below a quarter of the roofline's time (a working set in
// L3 can beat the copy roof, but further below is the model extrapolating,
// not the machine). Without a prior (0: unknown roof), the residual alone.
// `correction` is added before the floor.
double predicted_log_ms(const CostModel& model, const Features& features, const kernel::Variant& variant,
                        const PriorCorrection& correction = {});

// Spearman's rank correlation (ties take their mean rank); 0 for fewer than
// two pairs or a constant side.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace lego::search
