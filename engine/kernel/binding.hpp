// Binding a variant: each tensor's extents at the variant's sizes and the
// layout alternative it chose, checked to fit (a bijection onto as many
// positions as the tensor has elements); each named layout's alternative;
// the formulas (flops, bytes, launch shape) and the reference's source at
// those sizes. The code generator reads names through the Binding only.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "layout/ast.hpp"

namespace lego::kernel {

struct BoundTensor {
  std::string name;
  ElementType type = ElementType::F32;
  Role role = Role::In;
  std::vector<std::int64_t> extents;
  std::string layout_name;  // the alternative chosen
  std::string view_text;    // the layout over the tensor's own coordinates (untiled_view)
  std::int64_t elements = 0;
};

// A name a placeholder may use: a tensor's layout as its indices read it
// (its untiled view) or a named layout, and how errors name it
// ("tensor A, layout \"row\"", "layout L \"tiles\"").
struct NamedView {
  LayoutAst ast;
  std::string where;
};

struct Binding {
  std::vector<BoundTensor> tensors;
  std::map<std::string, NamedView> views;  // tensors and layouts by name

  const BoundTensor* tensor(const std::string& name) const;
  const NamedView* view(const std::string& name) const;
  std::string names() const;  // " A B L", for "it has:" in errors
};

// Throws LegoError naming the tensor, the layout and why it does not fit.
Binding bind_variant(const KernelSpec& spec, const Variant& variant);

// A formula of the kernel (flops, bytes, extents, launch) at `parameters`;
// errors name the kernel and `what`.
std::int64_t formula_value(const KernelSpec& spec, const Expr& e, const Env& parameters, const std::string& what);

// A CUDA kernel's launch shape at `parameters` (1 where the kernel gives
// none); LegoError when an extent is less than 1.
struct LaunchShape {
  std::array<std::int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
};
LaunchShape launch_shape(const KernelSpec& spec, const Env& parameters);

// What plain C++ compiled per size (the reference, baselines) starts with:
// <cstdint>, the half conversions F16 tensors need (sym::half_conversions)
// and the parameters as constants.
std::string plain_code_header(const Env& parameters);

// The reference's translation unit: the parameters its text names, then its text.
std::string reference_source(const KernelSpec& spec, const Env& parameters);

// The C identifiers (letters, digits, underscores) a text names: which
// parameters a layout can depend on.
std::set<std::string, std::less<>> identifiers_in(const std::string& text);

// The same for C++ code (a template, a reference), outside its comments:
// a parameter a comment names ("bricks of BR^3") does not change the code,
// and taking it for used made a row-major stencil one code per brick size
// (timed once, as the results cache knew, but counted once per size in the
// search's space and its replays). Naming more is safe (it only keeps codes
// apart); naming less makes two codes one, timed for both. So a `{{ }}`
// placeholder is code whatever it holds ({{ N // T }} divides), as is a
// comment holding one (it is expanded there too); string and character
// literals are read as code, so that a "//" inside one hides nothing;
// lines are spliced first, as the compiler does; a text with a raw string
// literal is read whole.
std::set<std::string, std::less<>> identifiers_in_code(const std::string& text);

}  // namespace lego::kernel
