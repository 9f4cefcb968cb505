// ISL as the second prover: when intervals and symbolic bounds cannot show
// e >= 0, a quasi-affine e (constant coefficients, floor division and modulo
// by constants, parameters only in linear constraints) over the index box is
// handed to ISL, which decides Presburger arithmetic exactly:
//   [N] -> { [i, j] : ranges and sizes >= 1 and e < 0 }  empty  =>  e >= 0.
// Anything outside (products of variables, min/max, bit ops) stays unknown.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "sym/prover.hpp"

namespace lego::poly {

// e in ISL's syntax, or nullopt when it is not quasi-affine (then
// `offending`, when given, is the first subterm that is not).
std::optional<std::string> to_isl(sym::Ref e, sym::Ref* offending = nullptr);

class IslProver {
 public:
  IslProver();
  ~IslProver();
  IslProver(const IslProver&) = delete;
  IslProver& operator=(const IslProver&) = delete;

  // True only when ISL proves e >= 0 for every index in range and every
  // parameter value allowed by the facts.
  bool nonneg(sym::Ref e, const sym::Facts& facts);
  int queries() const { return queries_; }

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
  std::unordered_map<sym::Ref, bool> cache_;
  int queries_ = 0;
};

// Makes `prover` ask ISL (through `isl`, which must outlive it) when its own
// analyses fail.
void use_isl(sym::Prover& prover, IslProver& isl);

}  // namespace lego::poly
