// Template instantiation. Placeholders `{{ ... }}` in a kernel template:
//   {{ A[i, k] }}                  the simplified index of tensor/layout A at (i, k)
//   {{ A.apply(i, k) }}            the same
//   {{ pid_m, pid_n = L.inv(pid) }}  declarations of L's inverse at pid
//   {{ BM }}, {{ N / BM }}          a constant expression over the parameters
//   {{ A.size }}                   the number of elements A's storage holds
// Index arguments are names (ranged by the layout) or integers. Expansions
// never add lines, so compiler messages keep the template's line numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "expr/print.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"

namespace lego::kernel {

struct BoundTensor {
  std::string name;
  ElementType type = ElementType::F32;
  Role role = Role::In;
  std::vector<std::int64_t> extents;
  std::string layout_name;  // the alternative chosen
  std::string view_text;    // the layout over the tensor's own coordinates (tensor_view)
  std::int64_t elements = 0;
};

struct Expansion {
  int line = 0, column = 0;  // in the template
  std::string placeholder, code;
  int ops = 0;
};

struct Instance {
  std::string kernel, variant;
  std::string source;     // a whole translation unit
  std::string reference;  // the reference's source
  std::vector<BoundTensor> tensors;
  Env parameters;
  std::int64_t flops = 0, bytes = 0;
  double tolerance = 0;
  std::vector<Expansion> expansions;
};

// Throws LegoError with "template:line:column" and a caret line for a bad
// placeholder, and names the tensor and layout when a layout does not fit.
Instance instantiate(const KernelSpec& spec, const Variant& variant, sym::Lang lang);

}  // namespace lego::kernel
