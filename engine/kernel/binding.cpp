#include "kernel/binding.hpp"

#include <cctype>
#include <set>

#include "layout/make_plan.hpp"
#include "layout/untiled_view.hpp"
#include "sym/print.hpp"

namespace lego::kernel {
namespace {

const LayoutChoice& chosen(const Variant& variant, const std::string& name, const std::vector<LayoutChoice>& alternatives) {
  const std::string& pick = variant.layout_choice.at(name);
  for (const auto& c : alternatives)
    if (c.name == pick) return c;
  throw LegoError("variant " + variant.id + ": " + name + " has no layout \"" + pick + "\"");
}

// Checks that the layout stores the tensor: its logical extents, a
// bijection, as many positions as elements. Returns its untiled view.
LayoutAst tensor_view(const LayoutAst& layout, const BoundTensor& b, const Env& parameters) {
  const LayoutAst view = untiled_view(layout, b.extents.size());
  const Plan plan = make_plan(view, parameters);
  for (std::size_t k = 0; k < b.extents.size(); ++k)
    if (plan.shape()[k] != b.extents[k])
      throw LegoError("its logical extent " + std::to_string(k) + " is " + std::to_string(plan.shape()[k]) + " but the tensor's is " +
                      std::to_string(b.extents[k]));
  if (!plan.has_inverse()) throw LegoError("a tensor's layout must be a bijection (this one is apply-only)");
  if (plan.physical_size() != b.elements)
    throw LegoError("it stores " + std::to_string(plan.physical_size()) + " elements for " + std::to_string(b.elements));
  return view;
}

}  // namespace

const BoundTensor* Binding::tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const NamedView* Binding::view(const std::string& name) const {
  const auto it = views.find(name);
  return it == views.end() ? nullptr : &it->second;
}

std::string Binding::names() const {
  std::string out;
  for (const auto& [name, v] : views) out += " " + name;
  return out;
}

Binding bind_variant(const KernelSpec& spec, const Variant& variant) {
  Binding out;
  for (const auto& t : spec.tensors) {
    const LayoutChoice& choice = chosen(variant, t.name, t.layouts);
    BoundTensor b;
    b.name = t.name;
    b.type = t.type;
    b.role = t.role;
    b.layout_name = choice.name;
    b.elements = 1;
    for (const auto& e : t.extents) {
      b.extents.push_back(formula_value(spec, e, variant.parameters, "extents of " + t.name));
      if (b.extents.back() < 1)
        throw LegoError("tensor " + t.name + ": an extent is " + std::to_string(b.extents.back()) + "; extents are >= 1");
      b.elements *= b.extents.back();
    }
    const std::string where = "tensor " + t.name + ", layout \"" + choice.name + "\"";
    LayoutAst view;
    try {
      view = tensor_view(choice.ast, b, variant.parameters);
    } catch (const LegoError& e) {
      throw LegoError(where + " (" + choice.text + "): " + e.what());
    }
    b.view_text = print(view);
    out.views[t.name] = {view, where};
    out.tensors.push_back(std::move(b));
  }
  for (const auto& l : spec.layouts) {
    const LayoutChoice& choice = chosen(variant, l.name, l.alternatives);
    out.views[l.name] = {choice.ast, "layout " + l.name + " \"" + choice.name + "\""};
  }
  return out;
}

std::int64_t formula_value(const KernelSpec& spec, const Expr& e, const Env& parameters, const std::string& what) {
  try {
    return evaluate(e, parameters);
  } catch (const LegoError& err) {
    throw LegoError("kernel " + spec.name + ": the \"" + what + "\" formula: " + err.what());
  }
}

LaunchShape launch_shape(const KernelSpec& spec, const Env& parameters) {
  LaunchShape out;
  for (std::size_t d = 0; d < 3; ++d) {
    if (d < spec.grid.size()) out.grid[d] = formula_value(spec, spec.grid[d], parameters, "launch.grid");
    if (d < spec.block.size()) out.block[d] = formula_value(spec, spec.block[d], parameters, "launch.block");
    if (out.grid[d] < 1 || out.block[d] < 1) throw LegoError("kernel " + spec.name + ": a launch extent is less than 1");
  }
  return out;
}

std::string plain_code_header(const Env& parameters) {
  std::string out = "#include <cstdint>\n" + sym::half_conversions(sym::Lang::C);
  for (const auto& [name, value] : parameters) out += "constexpr int64_t " + name + " = " + std::to_string(value) + ";\n";
  return out;
}

// The reference gets only the parameters its text names. A reference is
// the same program for every tile size and unroll factor of a sweep, and the
// worker keeps a reference's outputs while its source is unchanged: with
// all parameters, each variant's new T or FLAT made a new source, and every
// variant compiled and ran the reference again. A name it uses without
// naming it (token pasting) is an undeclared identifier, a compile error,
// never a silently different reference.
std::set<std::string, std::less<>> identifiers_in(const std::string& text) {
  std::set<std::string, std::less<>> named;
  const auto identifier_char = [&](std::size_t at) { return std::isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_'; };
  for (std::size_t k = 0; k < text.size();) {
    if (!identifier_char(k)) {
      ++k;
      continue;
    }
    const std::size_t start = k;
    while (k < text.size() && identifier_char(k)) ++k;
    named.emplace(text.substr(start, k - start));
  }
  return named;
}

std::string reference_source(const KernelSpec& spec, const Env& parameters) {
  const auto named = identifiers_in(spec.reference_text);
  Env used;
  for (const auto& [name, value] : parameters)
    if (named.count(name)) used[name] = value;
  return plain_code_header(used) + "#line 1 \"" + spec.reference_name + "\"\n" + spec.reference_text;
}

}  // namespace lego::kernel
