// The one verification rule: whether a variant's output matches the
// reference, element by element. The worker compiles this header, and the
// CPU Slurm bundle and the CUDA bench bundle carry its text (harness_common,
// generated from this file by the build), so a result is judged the same
// way on the machine, on the cluster and on a GPU node.
//   - Floats match within `tolerance` of |got - want| / (1 + |want|): NaN
//     matches only NaN (a kernel that leaves the poison unwritten fails).
//   - Integers match exactly, whatever the tolerance.
//   - The default tolerance is per type: 1e-4 for float, 1e-10 for double.
// Standard C++ only: it is pasted into code that has none of the engine.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace lego_check {

template <class T>
constexpr double default_tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : std::is_same_v<T, double> ? 1e-10 : 0.0;
}

struct Checked {
  std::int64_t mismatches = 0;
  std::int64_t first_mismatch = -1;  // element index
  double max_error = 0;
};

template <class T>
Checked check_elements(const T* got, const T* want, std::int64_t count, double tolerance) {
  Checked c;
  if (!(tolerance > 0)) tolerance = default_tolerance<T>();
  for (std::int64_t k = 0; k < count; ++k) {
    bool same = false;
    double error = 0;
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[k]) || std::isnan(got[k])) {
        same = std::isnan(want[k]) && std::isnan(got[k]);
        error = same ? 0 : std::numeric_limits<double>::infinity();
      } else {
        const double g = static_cast<double>(got[k]), w = static_cast<double>(want[k]);
        error = std::fabs(g - w) / (1.0 + std::fabs(w));
        same = error <= tolerance;
      }
    } else {
      same = got[k] == want[k];
      error = same ? 0 : 1;
    }
    if (error > c.max_error) c.max_error = error;
    if (!same && c.mismatches++ == 0) c.first_mismatch = k;
  }
  return c;
}

}  // namespace lego_check
