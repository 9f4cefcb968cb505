// Exhaustive bijectivity checks with evidence: the first two indices that
// collide, the first physical index nobody reaches, the first x whose inv
// does not come back to x.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "layout/plan.hpp"

namespace lego {

inline constexpr std::int64_t kExhaustiveLimit = std::int64_t{1} << 28;
// The most a user may raise it to: the check keeps one bit per position.
inline constexpr std::int64_t kMaxExhaustiveLimit = std::int64_t{1} << 32;

// How the exhaustive checks on this thread behave: their size limit, a
// progress callback for checks above `report_above` elements (called about
// every million elements) and a flag that stops them with CheckCancelled.
// The CLI installs one for --max-check, progress on stderr and Ctrl-C.
struct CheckControl {
  std::int64_t limit = kExhaustiveLimit;
  std::int64_t report_above = std::int64_t{1} << 24;
  std::function<void(std::int64_t done, std::int64_t total)> progress;
  const std::atomic<bool>* cancel = nullptr;
};
const CheckControl& check_control();

class ScopedCheckControl {
 public:
  explicit ScopedCheckControl(CheckControl control);
  ~ScopedCheckControl();
  ScopedCheckControl(const ScopedCheckControl&) = delete;
  ScopedCheckControl& operator=(const ScopedCheckControl&) = delete;

 private:
  CheckControl previous_;
};

struct CheckCancelled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
BijectivityReport check_bijective(const MapUnderTest& m, std::int64_t limit = check_control().limit);

BijectivityReport check_bijective(const Plan& plan, std::int64_t limit = check_control().limit);

// Every user-defined GenP of the layout, exhaustively; throws a LegoError at
// the GenP's span with the evidence when one is not a bijection, or when an
// apply-only GenP (injective or broadcast, as the spec allows) maps an index
// below 0 or is too large to evaluate at every index. Sets an apply-only
// layout's footprint (its largest offset + 1).
void validate_user_genps(BoundLayout& layout, std::int64_t limit = check_control().limit);

}  // namespace lego
