// Bijectivity decided by ISL. A layout whose symbolic apply is quasi-affine
// in its indices (sizes may appear as parameters, but only additively) is a
// Presburger relation A = { [i..] -> [x] : x = apply(i..), 0 <= i < shape }.
// ISL then decides, for every parameter value allowed by the constraints:
//   A injective, and A's image == [0, size)       =>  bijective;
// and when the derived inverse is quasi-affine too, reverse(A) == { [x] ->
// [i..] : i = inv(x) } proves the generated inverse code exact. Outside
// Presburger arithmetic (index * size, XOR, isqrt) the verdict is "not
// decidable here", with the term that is not quasi-affine.
#pragma once

#include <string>
#include <vector>

#include "layout/ast.hpp"

namespace lego::poly {

enum class IslStatus { Bijective, NotBijective, Undecided };

struct IslVerdict {
  IslStatus status = IslStatus::Undecided;
  bool inverse_exact = false;    // the derived inv proved to be apply's inverse
  bool inverse_refuted = false;  // an index proved where inv(apply(i)) != i: the layout's inverse is wrong
  std::string evidence;          // one sentence
  std::string counterexample;    // NotBijective: an index or position that shows it
};

const char* to_string(IslStatus s);

IslVerdict isl_check_layout(const LayoutAst& layout, const Env& env, const std::vector<Expr>& constraints);

}  // namespace lego::poly
