// Exhaustive bijectivity checks with evidence: the first two indices that
// collide, the first physical index nobody reaches, the first x whose inv
// does not come back to x.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "layout/plan.hpp"

namespace lego {

inline constexpr std::int64_t kExhaustiveLimit = std::int64_t{1} << 28;

struct BijectivityReport {
  bool checked = false;  // false: too large to check exhaustively
  bool bijective = false;
  std::string evidence;  // one sentence, indices written as (i,j,..)
};

// Checks a map from the box `shape` into [0, range): injective, onto, and
// (when `inv` is given) inv(apply(i)) == i for every i. `apply` may return
// -1 for "dropped" when allow_dropped (ExpandBy).
struct MapUnderTest {
  std::vector<std::int64_t> shape;
  std::int64_t range = 0;
  std::function<std::int64_t(const std::int64_t*)> apply;
  std::function<void(std::int64_t, std::int64_t*)> inv;  // may be empty
  bool allow_dropped = false;
};
BijectivityReport check_bijective(const MapUnderTest& m, std::int64_t limit = kExhaustiveLimit);

BijectivityReport check_bijective(const Plan& plan, std::int64_t limit = kExhaustiveLimit);

// Every user-defined GenP of the layout, exhaustively; throws a LegoError at
// the GenP's span with the evidence when one is not a bijection (or, for an
// apply-only GenP, maps outside its range).
void validate_user_genps(const BoundLayout& layout, std::int64_t limit = kExhaustiveLimit);

}  // namespace lego
