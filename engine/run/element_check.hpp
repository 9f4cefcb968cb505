// The one verification rule: whether a variant's output matches the
// reference, element by element. The worker compiles this header, and the
// CPU Slurm bundle and the CUDA bench bundle carry its text (harness_common,
// generated from this file by the build), so a result is judged the same
// way on the machine, on the cluster and on a GPU node.
//   - Floats match within `tolerance` of |got - want| / (1 + |want|): NaN
//     matches only NaN (a kernel that leaves the poison unwritten fails).
//   - Integers match exactly, whatever the tolerance.
//   - Halves (raw binary16 bits, run/half.hpp) are the floats they stand for.
//   - The default tolerance is per type: 1e-4 for float, 1e-10 for double,
//     1e-2 for half.
// Standard C++ only: it is pasted into code that has none of the engine
// (after run/half.hpp's text, which it includes here).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "half.hpp"

namespace lego_check {

template <class T>
constexpr double default_tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : std::is_same_v<T, double> ? 1e-10 : 0.0;
}

// A half carries 11 significant bits: one rounding is off by up to 2^-11
// (5e-4) relatively, and a kernel that sums in another order than the
// reference, then rounds, lands a few of its ulps (1e-3 each) away. 1e-2
// passes those and still fails a wrong element, which is off by far more.
constexpr double kHalfTolerance = 1e-2;

struct Checked {
  std::int64_t mismatches = 0;
  std::int64_t first_mismatch = -1;  // element index
  double max_error = 0;
};

// Each element judged by `value(element)`'s type: floating point within
// `tolerance`, anything else exactly.
template <class T, class Value>
Checked check_values(const T* got, const T* want, std::int64_t count, double tolerance, Value value) {
  Checked c;
  for (std::int64_t k = 0; k < count; ++k) {
    const auto g = value(got[k]), w = value(want[k]);
    bool same = false;
    double error = 0;
    if constexpr (std::is_floating_point_v<decltype(g)>) {
      if (std::isnan(w) || std::isnan(g)) {
        same = std::isnan(w) && std::isnan(g);
        error = same ? 0 : std::numeric_limits<double>::infinity();
      } else {
        error = std::fabs(static_cast<double>(g) - static_cast<double>(w)) / (1.0 + std::fabs(static_cast<double>(w)));
        same = error <= tolerance;
      }
    } else {
      same = g == w;
      error = same ? 0 : 1;
    }
    if (error > c.max_error) c.max_error = error;
    if (!same && c.mismatches++ == 0) c.first_mismatch = k;
  }
  return c;
}

template <class T>
Checked check_elements(const T* got, const T* want, std::int64_t count, double tolerance) {
  return check_values(got, want, count, tolerance > 0 ? tolerance : default_tolerance<T>(), [](T v) { return v; });
}

// Half elements: uint16_t bits, judged as floats (never as integers).
inline Checked check_half_elements(const std::uint16_t* got, const std::uint16_t* want, std::int64_t count, double tolerance) {
  return check_values(got, want, count, tolerance > 0 ? tolerance : kHalfTolerance, lego_half::half_to_float);
}

}  // namespace lego_check
