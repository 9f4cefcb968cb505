#include "kernel/binding.hpp"

#include <algorithm>
#include <array>
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
  // CUDA's limits (every compute capability from 3.0 on): a launch past
  // them fails on a device, so it is no variant, with or without one.
  constexpr std::array<std::int64_t, 3> kMostBlocks{(std::int64_t{1} << 31) - 1, 65535, 65535}, kMostThreads{1024, 1024, 64};
  constexpr const char* kAxis[] = {"x", "y", "z"};
  const auto refuse = [&](const std::string& what, std::int64_t value, std::int64_t most) {
    throw LegoError("kernel " + spec.name + ": " + what + " is " + std::to_string(value) + "; CUDA allows at most " + std::to_string(most));
  };
  for (std::size_t d = 0; d < 3; ++d) {
    if (out.grid[d] > kMostBlocks[d]) refuse(std::string("launch.grid.") + kAxis[d], out.grid[d], kMostBlocks[d]);
    if (out.block[d] > kMostThreads[d]) refuse(std::string("launch.block.") + kAxis[d], out.block[d], kMostThreads[d]);
  }
  if (const std::int64_t threads = out.block[0] * out.block[1] * out.block[2]; threads > 1024)
    refuse("a block's thread count (" + std::to_string(out.block[0]) + " x " + std::to_string(out.block[1]) + " x " +
               std::to_string(out.block[2]) + ")",
           threads, 1024);
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

namespace {

// Whether the quote at `at` opens a character literal: it does unless it
// follows a number (a digit separator: 1'000, 0xFF'FF). A prefix (L'x',
// u8'x') is a name, not a number, so its quote opens a literal.
bool opens_character_literal(const std::string& code, std::size_t at) {
  std::size_t start = at;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(code[start - 1])) || code[start - 1] == '_')) --start;
  return start == at || !std::isdigit(static_cast<unsigned char>(code[start]));
}

}  // namespace

std::set<std::string, std::less<>> identifiers_in_code(const std::string& text) {
  if (text.find("R\"") != std::string::npos) return identifiers_in(text);
  // Lines spliced first, as the compiler does: "*\<newline>/" ends a comment.
  std::string code;
  code.reserve(text.size());
  for (std::size_t k = 0; k < text.size(); ++k)
    if (text[k] == '\\' && k + 1 < text.size() && text[k + 1] == '\n')
      ++k;
    else
      code += text[k];
  std::string kept;  // the code with each comment replaced by a space
  kept.reserve(code.size());
  for (std::size_t k = 0; k < code.size();) {
    const char c = code[k];
    // A placeholder is code whatever it holds ({{ N // T }} divides).
    if (c == '{' && code.compare(k, 2, "{{") == 0) {
      const std::size_t end = code.find("}}", k + 2);
      const std::size_t stop = end == std::string::npos ? code.size() : end + 2;
      kept.append(code, k, stop - k);
      k = stop;
      continue;
    }
    if (c == '/' && k + 1 < code.size() && (code[k + 1] == '/' || code[k + 1] == '*')) {
      const bool line = code[k + 1] == '/';
      const std::size_t end = line ? code.find('\n', k) : code.find("*/", k + 2);
      const std::size_t stop = end == std::string::npos ? code.size() : end + (line ? 0 : 2);
      // A placeholder in a comment is expanded there too: read such a comment as code.
      const std::string comment = code.substr(k, stop - k);
      kept += comment.find("{{") != std::string::npos ? comment : std::string(" ");
      k = stop;
      continue;
    }
    const bool literal = c == '"' || (c == '\'' && opens_character_literal(code, k));
    if (!literal) {
      kept += c;
      ++k;
      continue;
    }
    std::size_t end = k + 1;
    while (end < code.size() && code[end] != c && code[end] != '\n') end += code[end] == '\\' ? 2 : 1;
    end = std::min(end + 1, code.size());
    kept.append(code, k, end - k);
    k = end;
  }
  return identifiers_in(kept);
}

std::string reference_source(const KernelSpec& spec, const Env& parameters) {
  const auto named = identifiers_in_code(spec.reference_text);
  Env used;
  for (const auto& [name, value] : parameters)
    if (named.count(name)) used[name] = value;
  return plain_code_header(used) + "#line 1 \"" + spec.reference_name + "\"\n" + spec.reference_text;
}

}  // namespace lego::kernel
