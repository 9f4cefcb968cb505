// Proves the side conditions of rewrite rules from what is known about the
// variables: numeric intervals first, then symbolic bounds (an index in
// [0, n-1] has upper bound n-1; a size parameter bounds itself), so that
// j < n follows from  lower(n - j - 1) = n - (n-1) - 1 = 0 >= 0.
// Never claims what it cannot show: a failed proof only means "unknown".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "sym/sym.hpp"

namespace lego::sym {

// Inclusive bounds of a variable; null means unbounded on that side. A
// variable without an entry is unbounded; a variable whose bounds are not
// given but which is a size should get lo = 1.
struct VarRange {
  Ref lo = nullptr;
  Ref hi = nullptr;
};

struct Facts {
  std::map<std::string, VarRange, std::less<>> ranges;
  // True for variables that stand for themselves in symbolic bounds
  // (sizes, parameters); indices are replaced by their range instead.
  std::map<std::string, bool, std::less<>> is_parameter;
  // Expressions that are sizes (extents such as N//B): at least 1, and
  // their own symbolic bound.
  std::unordered_set<Ref> sizes;
};

struct Interval {
  static constexpr std::int64_t kNegInf = INT64_MIN;
  static constexpr std::int64_t kPosInf = INT64_MAX;
  std::int64_t lo = kNegInf;
  std::int64_t hi = kPosInf;
  bool fits_int32() const { return lo >= INT32_MIN && hi <= INT32_MAX; }
};

class Prover {
 public:
  Prover(Pool& pool, Facts facts) : pool_(pool), facts_(std::move(facts)) {}

  Interval interval(Ref e);
  Ref lower(Ref e);  // symbolic inclusive bounds, nullptr when unknown
  Ref upper(Ref e);

  bool nonneg(Ref e) { return nonneg(e, 0); }
  bool positive(Ref e) { return nonneg(pool_.add_constant(e, -1)); }
  bool less_than(Ref a, Ref b) { return nonneg(pool_.add_constant(pool_.sub(b, a), -1)); }
  bool less_equal(Ref a, Ref b) { return nonneg(pool_.sub(b, a)); }

  // A second prover asked when the analyses here fail (engine/poly's ISL
  // bridge); it must only answer true when it has a proof.
  void set_fallback(std::function<bool(Ref, const Facts&)> f) { fallback_ = std::move(f); }

  // Distributes products over sums, so symbolic bounds cancel:
  // (m-1)*n -> m*n - n.
  Ref expand(Ref e);

 private:
  Ref bound(Ref e, bool upper_side, int depth);
  bool nonneg(Ref e, int depth);
  Ref divide_common_factor(Ref e);
  Pool& pool_;
  const Facts facts_;
  std::unordered_map<Ref, Interval> intervals_;
  std::function<bool(Ref, const Facts&)> fallback_;
};

}  // namespace lego::sym
