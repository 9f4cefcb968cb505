// The placeholders of a kernel template, parsed into typed values before any
// code is made (kernel/instantiate.hpp lists what each one means):
//   {{ A[i, k] }}, {{ A.apply(i, k) }}, {{ smem S[r, c] }}   Access (A.apply: arithmetic only)
//   {{ pid_m, pid_n = L.inv(pid) }}                         Inverse
//   {{ for i, j in L [parallel] [simd] [flat=EXPR] }}        For
//   {{ end }}                                               End
//   {{ [stream] B[j, i] = A[i, j] }}                        Move
//   {{ A.size }}, {{ A.stride(d) }}, {{ A.run(d) }}         Size, Stride, Run
//   {{ N // BM }}                                           Constant
// What can be checked without the kernel's tensors and sizes is checked
// here: the form, names that must be identifiers, indices that must be
// names or integers, index positions, loop options and expressions'
// syntax. A mistake is a LegoError "template:line:column: error: ..." with a
// caret under the text at fault. To add a placeholder: a struct here, its
// recognition in placeholder.cpp, its expansion in instantiate.cpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "expr/expr.hpp"

namespace lego::kernel {

namespace placeholder {

// NAME[i, k]: indices are names (ranged by the layout) or integers; in a
// Triton template also ':', a whole dimension (a tl.arange over it).
struct Access {
  std::string name;
  std::vector<std::string> indices;
  bool shared = false;      // smem S[r, c]: a layout that stores a __shared__ array of its name
  std::size_t name_at = 0;  // the name's offset in the template, where an unknown name's error points
  // A.apply(i, k): the same offset, computed rather than accessed (a plan's
  // arithmetic), so no access site: a trace never counts it as memory.
  bool arithmetic = false;
};

struct Inverse {
  std::vector<std::string> names;  // declared, one per coordinate
  std::string layout;
  std::vector<std::string> indices;
};

struct For {
  std::vector<std::string> names;  // the layout's logical coordinates
  std::string layout;
  bool parallel = false, simd = false;
  std::optional<Expr> flat;   // flat=EXPR: the flat form when EXPR is not 0
  std::size_t layout_at = 0;  // the layout's offset in the template
  std::size_t flat_at = 0;    // EXPR's offset in the template, for errors in evaluating it
};

struct End {};

struct Move {
  bool stream = false;  // streaming stores, where a micro-kernel can prove them aligned
  Access dst, src;
  std::string dst_text, src_text;  // each side's text: its own access site
};

struct Size {
  std::string name;
};

// NAME.stride(d) and NAME.run(d): d is an index position.
struct Stride {
  std::string name;
  std::size_t dimension = 0;
};
struct Run {
  std::string name;
  std::size_t dimension = 0;
};

struct Constant {
  Expr expression;  // over the parameters and the target's constants
};

}  // namespace placeholder

using PlaceholderForm = std::variant<placeholder::Access, placeholder::Inverse, placeholder::For, placeholder::End, placeholder::Move,
                                     placeholder::Size, placeholder::Stride, placeholder::Run, placeholder::Constant>;

// Visits a form with one lambda per type: std::visit(Overloaded{...}, p.form).
template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;  // clang 15 does not deduce an aggregate's arguments

struct Placeholder {
  std::size_t open = 0, close = 0;  // the template's [offset of "{{", past "}}")
  std::size_t at = 0;               // the offset of its trimmed text, where errors point
  int line = 0, column = 0;         // of the "{{"
  std::string text;                 // trimmed
  PlaceholderForm form;
};

// Every placeholder of `text` in order; `template_name` prefixes errors.
std::vector<Placeholder> parse_placeholders(const std::string& text, const std::string& template_name);

// An error located in the template (what parse_placeholders and
// template_error throw), as opposed to one its caller still has to place.
class TemplateError : public LegoError {
 public:
  using LegoError::LegoError;
};

// The error form parse_placeholders throws, for mistakes found later (an
// unknown tensor, a layout that does not fit): `length` characters from
// `offset` of the template are marked.
[[noreturn]] void template_error(const std::string& text, const std::string& template_name, std::size_t offset, std::size_t length,
                                 const std::string& message);

}  // namespace lego::kernel
