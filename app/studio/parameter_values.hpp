// The sizes a user types in the kernels panel's parameters row, as a
// project's "parameters" take them: one value ("1024"), a list ("16, 32"),
// or a range ("8..64 x2" doubles, "0..12 +4" steps, "1..8" counts). The
// kernel's variants are enumerated again at those values, the way lego
// bench --set does it. Qt-free: parsing here, the constraints checked on
// the sweep thread (kernel::why_no_variant).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/spec.hpp"
#include "target/target.hpp"

namespace lego::studio {

// Parameter name -> the values its variants take.
using ParameterValues = std::map<std::string, std::vector<std::int64_t>>;

struct ParsedValues {
  std::vector<std::int64_t> values;
  std::string error;  // why the text is not values; empty when it is
};

ParsedValues parse_values(std::string_view text);

// The values as parse_values reads them back: a range when they are one
// (of three or more values), else a list.
std::string values_text(const std::vector<std::int64_t>& values);

// `spec` with these values for its parameters of the same names (others kept).
kernel::KernelSpec with_values(kernel::KernelSpec spec, const ParameterValues& values);

}  // namespace lego::studio
