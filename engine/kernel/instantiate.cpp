#include "kernel/instantiate.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "expr/parser.hpp"
#include "kernel/microkernel.hpp"
#include "layout/derive.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/untiled_view.hpp"
#include "poly/isl_runs.hpp"
#include "poly/loop_nest.hpp"

namespace lego::kernel {
namespace {

// A plain build leaves accesses as their indices; a tracing build defines LEGO_ACCESS first.
std::string access_macro() { return "#ifndef LEGO_ACCESS\n#define LEGO_ACCESS(site, array, index) (index)\n#endif\n"; }

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool is_integer(const std::string& s) {
  std::size_t k = (!s.empty() && s[0] == '-') ? 1 : 0;
  if (k == s.size()) return false;
  for (; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  return true;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t k = 0; k <= s.size(); ++k)
    if (k == s.size() || s[k] == ',') {
      out.push_back(trim(std::string_view(s).substr(start, k - start)));
      start = k + 1;
    }
  return out;
}

// Renames the temporaries a derivation printed (t0, t1, ..) so placeholders
// never collide: every identifier token in `names` gets `prefix`.
std::string rename(const std::string& code, const std::map<std::string, std::string>& names) {
  std::string out;
  for (std::size_t k = 0; k < code.size();) {
    if (std::isalpha(static_cast<unsigned char>(code[k])) || code[k] == '_') {
      std::size_t e = k;
      while (e < code.size() && (std::isalnum(static_cast<unsigned char>(code[e])) || code[e] == '_')) ++e;
      const std::string id = code.substr(k, e - k);
      auto it = names.find(id);
      out += it == names.end() ? id : it->second;
      k = e;
    } else {
      out += code[k++];
    }
  }
  return out;
}

// The parameters as constants, for code compiled per size (the reference, baselines).
std::string parameter_constants(const Env& parameters) {
  std::string out = "#include <cstdint>\n";
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
std::string reference_source(const KernelSpec& spec, const Env& parameters) {
  std::set<std::string, std::less<>> named;
  const std::string& text = spec.reference_text;
  for (std::size_t k = 0; k < text.size();) {
    const auto identifier_char = [&](std::size_t at) { return std::isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_'; };
    if (!identifier_char(k)) {
      ++k;
      continue;
    }
    const std::size_t start = k;
    while (k < text.size() && identifier_char(k)) ++k;
    named.emplace(text.substr(start, k - start));
  }
  Env used;
  for (const auto& [name, value] : parameters)
    if (named.count(name)) used[name] = value;
  return parameter_constants(used) + "#line 1 \"" + spec.reference_name + "\"\n" + spec.reference_text;
}

std::int64_t formula_value(const KernelSpec& spec, const Expr& e, const Env& parameters, const std::string& what) {
  try {
    return evaluate(e, parameters);
  } catch (const LegoError& err) {
    throw LegoError("kernel " + spec.name + ": the \"" + what + "\" formula: " + err.what());
  }
}

class Instantiator {
 public:
  Instantiator(const KernelSpec& spec, const Variant& variant, sym::Lang lang, const InstantiateOptions& options)
      : spec_(spec), variant_(variant), lang_(spec.backend == Backend::Cuda ? sym::Lang::Cuda : lang), options_(options) {}

  Instance run() {
    if (const std::string why = ruled_out_by(spec_, variant_.parameters, options_.target); !why.empty()) throw RuledOut(why);
    Instance inst;
    inst.target = options_.target.name;
    inst.kernel = spec_.name;
    inst.variant = variant_.id;
    inst.parameters = variant_.parameters;
    inst.reference = reference_source(spec_, variant_.parameters);
    inst.tolerance = spec_.tolerance;
    bind_layouts(inst);
    inst.flops = evaluate_formula(spec_.flops, "flops");
    inst.bytes = evaluate_formula(spec_.bytes, "bytes");
    inst.backend = spec_.backend;
    for (std::size_t d = 0; d < 3; ++d) {
      if (d < spec_.grid.size()) inst.grid[d] = evaluate_formula(spec_.grid[d], "launch.grid");
      if (d < spec_.block.size()) inst.block[d] = evaluate_formula(spec_.block[d], "launch.block");
      if (inst.grid[d] < 1 || inst.block[d] < 1) throw LegoError("kernel " + spec_.name + ": a launch extent is less than 1");
    }

    const std::string& t = spec_.template_text;
    std::size_t pos = 0;
    while (true) {
      const std::size_t open = t.find("{{", pos);
      if (open == std::string::npos) break;
      const std::size_t close = t.find("}}", open + 2);
      if (close == std::string::npos) fail(open, 2, "this '{{' has no closing '}}'");
      const std::string inside = t.substr(open + 2, close - open - 2);
      if (inside.find('\n') != std::string::npos) fail(open, 2, "a placeholder must fit on one line");
      Expansion x;
      const LineColumn lc = line_column(t, open);
      x.line = lc.line;
      x.column = lc.column;
      x.placeholder = trim(inside);
      spans_.push_back({open, close + 2});
      inst.expansions.push_back(std::move(x));
      expand(inst.expansions.back(), open + 2 + (inside.size() - trim_left(inside).size()), inst);
      pos = close + 2;
    }
    if (!nests_.empty()) fail(spans_[nests_.back().expansion].first, 2, "this loop nest has no {{ end }}");
    // Assembled last: closing a loop nest may rewrite its opening (a micro-kernel steps the inner loops by its tile).
    std::string body;
    pos = 0;
    for (std::size_t k = 0; k < spans_.size(); ++k) {
      body += t.substr(pos, spans_[k].first - pos) + inst.expansions[k].code;
      pos = spans_[k].second;
    }
    body += t.substr(pos);
    const std::string header =
        "// generated by LEGO Studio: kernel " + comment_text(spec_.name) + ", variant " + comment_text(variant_.id) + "\n";
    std::string prelude = lang_ == sym::Lang::Cuda ? cuda_prelude() : "#include <cstdint>\n" + sym::c_prelude(lang_) + access_macro();
    if (uses_microkernels_) prelude += microkernel_prelude(options_.target);
    inst.source = header + prelude + "#line 1 \"" + spec_.template_name + "\"\n" + body;
    return inst;
  }

 private:
  struct Move {
    std::size_t expansion = 0;
    std::string dst, src, dst_code, src_code;
    AccessShape dst_shape, src_shape;
    bool stream = false;
  };
  struct OpenNest {
    std::size_t expansion = 0;  // the {{ for }} placeholder's
    std::string layout;
    std::vector<std::string> names;
    poly::LoopNest nest;
    bool flat = false;  // no nest: one loop and L.inv per element
    std::string flat_code;
    bool parallel = false, simd = false;
    std::vector<std::size_t> statements;  // placeholders inside the body
    std::vector<Move> moves;
  };

  static std::string trim_left(const std::string& s) {
    std::size_t b = 0;
    while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    return s.substr(b);
  }

  [[noreturn]] void fail(std::size_t offset, std::size_t length, const std::string& message) const {
    throw LegoError(spec_.template_name + ":" + format_at(offset, length, message));
  }
  std::string format_at(std::size_t offset, std::size_t length, const std::string& message) const {
    return format_diagnostic(spec_.template_text, Diagnostic{Span{offset, offset + length}, message}, "");
  }

  std::int64_t evaluate_formula(const Expr& e, const std::string& what) const { return formula_value(spec_, e, variant_.parameters, what); }

  void bind_layouts(Instance& inst) {
    for (const auto& t : spec_.tensors) {
      const LayoutChoice& choice = chosen(t.name, t.layouts);
      BoundTensor b;
      b.name = t.name;
      b.type = t.type;
      b.role = t.role;
      b.layout_name = choice.name;
      b.elements = 1;
      for (const auto& e : t.extents) {
        b.extents.push_back(evaluate_formula(e, "extents of " + t.name));
        if (b.extents.back() < 1)
          throw LegoError("tensor " + t.name + ": an extent is " + std::to_string(b.extents.back()) + "; extents are >= 1");
        b.elements *= b.extents.back();
      }
      const std::string where = "tensor " + t.name + ", layout \"" + choice.name + "\"";
      LayoutAst view;
      try {
        view = untiled_view(choice.ast, b.extents.size());
        const Plan plan = make_plan(view, variant_.parameters);
        for (std::size_t k = 0; k < b.extents.size(); ++k)
          if (plan.shape()[k] != b.extents[k])
            throw LegoError("its logical extent " + std::to_string(k) + " is " + std::to_string(plan.shape()[k]) + " but the tensor's is " +
                            std::to_string(b.extents[k]));
        if (!plan.has_inverse()) throw LegoError("a tensor's layout must be a bijection (this one is apply-only)");
        if (plan.physical_size() != b.elements)
          throw LegoError("it stores " + std::to_string(plan.physical_size()) + " elements for " + std::to_string(b.elements));
      } catch (const LegoError& e) {
        throw LegoError(where + " (" + choice.text + "): " + e.what());
      }
      b.view_text = print(view);
      views_[t.name] = {view, where};
      inst.tensors.push_back(std::move(b));
    }
    for (const auto& l : spec_.layouts) {
      const LayoutChoice& choice = chosen(l.name, l.alternatives);
      views_[l.name] = {choice.ast, "layout " + l.name + " \"" + choice.name + "\""};
    }
  }

  const LayoutChoice& chosen(const std::string& name, const std::vector<LayoutChoice>& alternatives) const {
    const std::string& pick = variant_.layout_choice.at(name);
    for (const auto& c : alternatives)
      if (c.name == pick) return c;
    throw LegoError("variant " + variant_.id + ": " + name + " has no layout \"" + pick + "\"");
  }

  void expand(Expansion& x, std::size_t at, Instance& inst) {
    const std::string& p = x.placeholder;
    const std::size_t length = std::max<std::size_t>(p.size(), 1);
    const std::size_t index = inst.expansions.size() - 1;
    if (!nests_.empty()) nests_.back().statements.push_back(index);
    if (p == "end") return close_nest(x, at, inst);
    if (p.starts_with("for ")) return open_nest(x, at, length, inst);
    if (is_move(p)) return expand_move(x, at, length, inst);
    // pid_m, pid_n = L.inv(pid)
    if (const std::size_t eq = p.find('=');
        eq != std::string::npos && p.find("==") == std::string::npos && p.find(".inv(") != std::string::npos) {
      const auto names = split_commas(p.substr(0, eq));
      for (const auto& n : names)
        if (!is_identifier(n)) fail(at, eq, "expected names to declare before '=', found \"" + n + "\"");
      const std::string rhs = trim(p.substr(eq + 1));
      const std::size_t dot = rhs.find(".inv(");
      if (rhs.back() != ')') fail(at, length, "expected NAME.inv(index) after '='");
      const std::string layout = rhs.substr(0, dot);
      const auto args = split_commas(rhs.substr(dot + 5, rhs.size() - dot - 6));
      x.code = inv_code(x, layout, args, names, at, length, inst);
      return;
    }
    // A[i, k] or A.apply(i, k); smem S[r, c]
    std::optional<std::pair<std::string, std::string>> access;
    const bool shared = p.starts_with("smem ");
    if (const std::size_t b = p.find('['); b != std::string::npos && p.back() == ']')
      access = {{trim(p.substr(shared ? 5 : 0, b - (shared ? 5 : 0))), p.substr(b + 1, p.size() - b - 2)}};
    if (shared && !access) fail(at, length, "expected smem NAME[indices]");
    if (const std::size_t b = p.find(".apply("); b != std::string::npos && p.back() == ')')
      access = {{trim(p.substr(0, b)), p.substr(b + 7, p.size() - b - 8)}};
    if (access) {
      access_code(x, access->first, access->second, shared, at, length, inst);
      return;
    }
    // A.size
    if (p.size() > 5 && p.ends_with(".size")) {
      const std::string name = trim(p.substr(0, p.size() - 5));
      for (const auto& t : inst.tensors)
        if (t.name == name) {
          x.code = std::to_string(t.elements);
          return;
        }
      if (auto it = views_.find(name); it != views_.end()) {
        try {
          x.code = std::to_string(make_plan(it->second.first, variant_.parameters).physical_size());
        } catch (const LegoError& e) {
          fail(at, length, it->second.second + ": " + e.what());
        }
        return;
      }
      fail(at, length, "\"" + name + "\" is not a tensor or layout of kernel " + spec_.name);
    }
    // A.stride(d)
    if (const std::size_t r = p.find(".stride("); r != std::string::npos && p.back() == ')') {
      x.code = std::to_string(stride_code(trim(p.substr(0, r)), trim(p.substr(r + 8, p.size() - r - 9)), at, length, inst));
      return;
    }
    // A.run(d)
    if (const std::size_t r = p.find(".run("); r != std::string::npos && p.back() == ')') {
      x.code = std::to_string(run_code(trim(p.substr(0, r)), trim(p.substr(r + 5, p.size() - r - 6)), at, length, inst));
      return;
    }
    // a constant expression over the parameters
    x.code = std::to_string(constant(p, at, length));
  }

  // NAME and index position d of {{ NAME.run(d) }} and {{ NAME.stride(d) }}:
  // the layout as its indices read it (a tensor is indexed by its extents, so
  // a TileBy layout is read through its untiled view, as A[i, j] reads it).
  struct IndexedView {
    LayoutAst view;
    std::size_t dimension = 0;
    std::string where;
  };
  IndexedView indexed_view(const std::string& name, const std::string& dimension_text, const std::string& what, std::size_t at,
                           std::size_t length, const Instance& inst) {
    auto it = views_.find(name);
    if (it == views_.end()) fail(at, length, "\"" + name + "\" is not a tensor or layout of kernel " + spec_.name);
    if (!is_integer(dimension_text) || dimension_text[0] == '-' || dimension_text.size() > 6)
      fail(at, length, "expected NAME." + what + "(index position), e.g. B." + what + "(1)");
    const std::size_t dimension = std::stoul(dimension_text);
    const LayoutAst& ast = it->second.first;
    std::size_t rank = logical_rank(ast);
    for (const auto& t : inst.tensors)
      if (t.name == name) rank = t.extents.size();
    if (dimension >= rank)
      fail(at, length, name + " has " + std::to_string(rank) + " indices; " + what + "(" + dimension_text + ") is past them");
    try {
      return {rank != logical_rank(ast) && ast.closing == Closing::TileBy ? untiled_view(ast, rank) : ast, dimension, it->second.second};
    } catch (const LegoError& e) {
      fail(at, length, it->second.second + ": " + e.what());
    }
  }

  // {{ A.run(d) }}: the longest run along index d that A stores at
  // consecutive positions, as ISL proves it (1 when it cannot). The
  // template may copy such a run without checking it at run time.
  std::int64_t run_code(const std::string& name, const std::string& dimension_text, std::size_t at, std::size_t length, Instance& inst) {
    const IndexedView v = indexed_view(name, dimension_text, "run", at, length, inst);
    try {
      const poly::RunProof proof = poly::prove_runs(v.view, variant_.parameters, v.dimension, std::numeric_limits<std::int64_t>::max());
      inst.notes.push_back(name + ".run(" + dimension_text + ") = " + std::to_string(proof.run) + ": " + proof.evidence);
      return proof.run;
    } catch (const LegoError& e) {
      fail(at, length, v.where + ": " + e.what());
    }
  }

  // {{ A.stride(d) }}: how far apart A stores neighbours along index d, the
  // same at every index (checked at every one: the layout's table at these
  // sizes), so a template may step by it without computing it at run time.
  // A layout whose stride varies is an error that names two places where it differs.
  std::int64_t stride_code(const std::string& name, const std::string& dimension_text, std::size_t at, std::size_t length, Instance& inst) {
    const IndexedView v = indexed_view(name, dimension_text, "stride", at, length, inst);
    const std::size_t dimension = v.dimension;
    const Plan plan = [&] {
      try {
        return make_plan(v.view, variant_.parameters);
      } catch (const LegoError& e) {
        fail(at, length, v.where + ": " + e.what());
      }
    }();
    const auto& shape = plan.shape();
    if (shape[dimension] < 2) return 0;  // no neighbours along it
    if (plan.size() > (std::int64_t{1} << 28))
      fail(at, length,
           v.where + ": " + std::to_string(plan.size()) + " elements are too many to check a stride at every index (2^28 at most)");
    std::vector<std::int64_t> table(static_cast<std::size_t>(plan.size()));
    plan.apply_all(table.data());
    std::int64_t step = 1;  // row-major logical order: the distance between neighbours along `dimension`
    for (std::size_t d = dimension + 1; d < shape.size(); ++d) step *= shape[d];
    std::optional<std::int64_t> stride;
    std::int64_t first = 0;
    for (std::int64_t k = 0; k < plan.size(); ++k) {
      if ((k / step) % shape[dimension] == shape[dimension] - 1) continue;  // the last along it has no next
      const std::int64_t s = table[k + step] - table[k];
      if (!stride) {
        stride = s;
        first = k;
      } else if (s != *stride) {
        fail(at, length,
             v.where + ": its stride along index " + dimension_text + " is not constant (" + std::to_string(*stride) +
                 " at logical position " + std::to_string(first) + ", " + std::to_string(s) + " at " + std::to_string(k) +
                 "); use the index expression instead");
      }
    }
    inst.notes.push_back(name + ".stride(" + dimension_text + ") = " + std::to_string(*stride) + ": the same at every index");
    return *stride;
  }

  std::int64_t constant(const std::string& text, std::size_t at, std::size_t length) const {
    try {
      return evaluate(parse_expression(text), with_target(variant_.parameters, options_.target));
    } catch (const LegoError& e) {
      const Span s = e.diagnostic().span;
      if (s.known()) fail(at + s.begin, std::max<std::size_t>(s.end - s.begin, 1), e.diagnostic().message);
      fail(at, length, e.what());
    }
  }

  // Declarations of `names` = layout.inv(args) (the flat form).
  std::string inv_code(Expansion& x, const std::string& layout, const std::vector<std::string>& args, const std::vector<std::string>& names,
                       std::size_t at, std::size_t length, Instance& inst) {
    const DeriveResult r = derive_at(layout, args, true, at, length, names.size());
    if (r.exprs.size() != names.size())
      fail(at, length,
           layout + ".inv gives " + std::to_string(r.exprs.size()) + " coordinates but " + std::to_string(names.size()) +
               " names are declared");
    const auto temps = temporaries(r, inst.expansions.size());
    std::string code;
    for (const auto& [name, e] : r.temporaries) code += "const " + r.index_type + " " + temps.at(name) + " = " + rename(e, temps) + "; ";
    for (std::size_t k = 0; k < names.size(); ++k)
      code += "const int64_t " + names[k] + " = " + rename(r.exprs[k], temps) + ";" + (k + 1 < names.size() ? " " : "");
    x.ops = r.ops;
    return code;
  }

  // The index of NAME[args] as an expression; records the access.
  DeriveResult access_code(Expansion& x, const std::string& name, const std::string& args, bool shared, std::size_t at, std::size_t length,
                           Instance& inst) {
    DeriveResult r = derive_at(name, split_commas(args), false, at, length);
    const auto temps = temporaries(r, inst.expansions.size());
    if (r.temporaries.empty()) {
      x.code = "(" + r.exprs.at(0) + ")";
    } else {
      std::string code = "([&]() -> int64_t { ";
      for (const auto& [t, e] : r.temporaries) code += "const " + r.index_type + " " + temps.at(t) + " = " + rename(e, temps) + "; ";
      x.code = code + "return " + rename(r.exprs.at(0), temps) + "; }())";
    }
    x.ops = r.ops;
    mark_access(x, name, shared, at, length, inst);
    return r;
  }

  // {{ for i, j in L [parallel] [simd] }}: opens a loop nest over L's
  // physical order; the code is written when {{ end }} closes it.
  void open_nest(Expansion& x, std::size_t at, std::size_t length, Instance& inst) {
    const std::string& p = x.placeholder;
    const std::size_t in = p.find(" in ");
    if (in == std::string::npos) fail(at, length, "expected for NAMES in LAYOUT [parallel] [simd]");
    OpenNest n;
    n.expansion = inst.expansions.size() - 1;
    n.names = split_commas(p.substr(4, in - 4));
    for (const auto& name : n.names)
      if (!is_identifier(name)) fail(at, length, "expected names before 'in', found \"" + name + "\"");
    std::vector<std::string> words;
    for (std::size_t k = in + 4; k < p.size();) {
      const std::size_t e = std::min(p.find(' ', k), p.size());
      if (e > k) words.push_back(p.substr(k, e - k));
      k = e + 1;
    }
    if (words.empty()) fail(at, length, "expected a layout after 'in'");
    n.layout = words[0];
    bool forced_flat = false;  // flat=EXPR: the flat form as a baseline when EXPR is not 0
    for (std::size_t k = 1; k < words.size(); ++k) {
      if (words[k] == "parallel")
        n.parallel = true;
      else if (words[k] == "simd")
        n.simd = true;
      else if (words[k].starts_with("flat="))
        forced_flat = constant(words[k].substr(5), at, length) != 0;
      else
        fail(at, length, "unknown loop option \"" + words[k] + "\" (parallel, simd or flat=EXPR)");
    }
    auto it = views_.find(n.layout);
    if (it == views_.end()) fail(at, length, "\"" + n.layout + "\" is not a layout of kernel " + spec_.name);
    const LayoutAst& ast = it->second.first;
    try {
      const LayoutAst view = n.names.size() == logical_rank(ast) ? ast : untiled_view(ast, n.names.size());
      poly::LoopNestResult r = forced_flat ? poly::LoopNestResult{{}, "the flat form was asked for (flat=)"}
                                           : poly::build_loop_nest(view, variant_.parameters, n.names);
      n.nest = std::move(r.nest);
      if (!r.fallback.empty()) {
        n.flat = true;
        const std::int64_t size = make_plan(view, variant_.parameters).physical_size();
        n.flat_code = "for (int64_t lego_x = 0; lego_x < " + std::to_string(size) + "; ++lego_x) { " +
                      inv_code(x, n.layout, {"lego_x"}, n.names, at, length, inst);
        inst.notes.push_back(n.layout + ": one flat loop with " + n.layout + ".inv per element; " + r.fallback);
      } else {
        inst.notes.push_back(n.layout + ": " + std::to_string(n.nest.loops.size()) + " nested loops from its digits (ISL" +
                             (n.nest.guarded ? ", guarded partial tiles)" : ")"));
      }
    } catch (const LegoError& e) {
      fail(at, length, it->second.second + ": " + e.what());
    }
    nests_.push_back(std::move(n));
  }

  static bool is_move(const std::string& p) {
    const std::size_t eq = p.find('=');
    return eq != std::string::npos && p.find("==") == std::string::npos && p.find(".inv(") == std::string::npos && p.find(']') < eq &&
           p.back() == ']';
  }

  // {{ [stream] B[j, i] = A[i, j] }}: one element moved between tensors; as
  // the only statement of a loop nest it may become a register micro-kernel.
  void expand_move(Expansion& x, std::size_t at, std::size_t length, Instance& inst) {
    std::string p = x.placeholder;
    Move m;
    m.expansion = inst.expansions.size() - 1;
    if (p.starts_with("stream ")) {
      m.stream = true;
      p = trim(p.substr(7));
    }
    const std::size_t eq = p.find('=');
    const auto side = [&](const std::string& text, std::string& name, std::string& args) {
      const std::size_t b = text.find('[');
      if (b == std::string::npos || text.back() != ']') fail(at, length, "expected TENSOR[indices] = TENSOR[indices]");
      name = trim(text.substr(0, b));
      args = text.substr(b + 1, text.size() - b - 2);
      if (std::none_of(inst.tensors.begin(), inst.tensors.end(), [&](const BoundTensor& t) { return t.name == name; }))
        fail(at, length, "\"" + name + "\" is not a tensor of kernel " + spec_.name);
    };
    std::string dst_args, src_args;
    side(trim(p.substr(0, eq)), m.dst, dst_args);
    side(trim(p.substr(eq + 1)), m.src, src_args);
    Expansion part = x;  // each side is its own access site, named by its own text
    part.placeholder = trim(p.substr(0, eq));
    const DeriveResult d = access_code(part, m.dst, dst_args, false, at, length, inst);
    m.dst_code = m.dst + "[" + part.code + "]";
    x.ops = part.ops;
    part.placeholder = trim(p.substr(eq + 1));
    const DeriveResult s = access_code(part, m.src, src_args, false, at, length, inst);
    m.src_code = m.src + "[" + part.code + "]";
    x.ops += part.ops;
    x.code = m.dst_code + " = " + m.src_code + ";";
    const auto shape = [&](const DeriveResult& r, const std::string& tensor) {
      AccessShape a{r.strides, r.constant, 4};
      for (const auto& t : inst.tensors)
        if (t.name == tensor) a.element_bytes = static_cast<int>(element_bytes(t.type));
      return a;
    };
    m.dst_shape = shape(d, m.dst);
    m.src_shape = shape(s, m.src);
    if (!nests_.empty()) nests_.back().moves.push_back(std::move(m));
  }

  void close_nest(Expansion& x, std::size_t at, Instance& inst) {
    if (nests_.empty()) fail(at, 3, "this {{ end }} closes no loop nest");
    OpenNest n = std::move(nests_.back());
    nests_.pop_back();
    n.statements.pop_back();  // the end itself
    if (!nests_.empty())      // the inner nest's placeholders are the outer one's too
      for (std::size_t k : n.statements) nests_.back().statements.push_back(k);
    Expansion& open = inst.expansions[n.expansion];
    const std::string pragma = n.parallel ? "_Pragma(\"omp parallel for schedule(static)\") " : "";
    if (n.flat) {
      open.code = pragma + n.flat_code;
      x.code = "}";
      return;
    }
    std::vector<std::string> headers = n.nest.headers;
    bool stream = false, microkernel = false;
    // A move alone in the body: the layout picks a register micro-kernel.
    if (n.moves.size() == 1 && n.statements.size() == 1 && body_is_only(n.expansion, n.moves[0].expansion, inst.expansions.size() - 1) &&
        !options_.mark_accesses && headers.size() >= 2 && !n.nest.header_loop[headers.size() - 1].empty() &&
        !n.nest.header_loop[headers.size() - 2].empty() &&
        std::count(n.nest.rectangular.begin(), n.nest.rectangular.end(), static_cast<int>(headers.size()) - 1) &&
        std::count(n.nest.rectangular.begin(), n.nest.rectangular.end(), static_cast<int>(headers.size()) - 2)) {
      const Move& m = n.moves[0];
      InnerLoops loops;
      loops.outer = n.nest.header_loop[headers.size() - 2];
      loops.inner = n.nest.header_loop[headers.size() - 1];
      for (const auto& l : n.nest.loops) {
        loops.steps[l.var] = 1;
        if (l.var == loops.outer) loops.outer_extent = l.extent;
        if (l.var == loops.inner) loops.inner_extent = l.extent;
      }
      std::string why_not;
      if (auto c = choose_transpose(loops, m.src_shape, m.dst_shape, m.stream, options_.target, why_not)) {
        for (std::size_t h = headers.size() - 2; h < headers.size(); ++h) {
          const std::string& v = n.nest.header_loop[h];
          headers[h] = "for (int64_t " + v + " = 0; " + v + " < " +
                       std::to_string(v == loops.outer ? loops.outer_extent : loops.inner_extent) + "; " + v +
                       " += " + std::to_string(c->tile) + ") {";
        }
        inst.expansions[m.expansion].code = transpose_call(*c, m.src_code, m.dst_code);
        stream = c->stream;
        microkernel = uses_microkernels_ = true;
        inst.notes.push_back(m.dst + " = " + m.src + ": " + c->note);
      } else {
        inst.notes.push_back(m.dst + " = " + m.src + ": scalar move (" + why_not + ")");
      }
    }
    // Collapse the leading whole-range loops until they give the threads
    // enough work; never the two a micro-kernel steps by its tile.
    const int unstepped = static_cast<int>(headers.size()) - (microkernel ? 2 : 0);
    int collapse = 0;
    std::int64_t iterations = 1;
    while (collapse < unstepped && iterations < 64 && std::count(n.nest.rectangular.begin(), n.nest.rectangular.end(), collapse)) {
      for (const auto& l : n.nest.loops)
        if (l.var == n.nest.header_loop[collapse]) iterations *= l.extent;
      ++collapse;
    }
    std::string code;
    bool region = false;  // an omp parallel block of our own, closed after the fence
    if (n.parallel) {
      const bool first_is_loop = !n.nest.header_loop.empty() && !n.nest.header_loop[0].empty();
      const std::string clause = " schedule(static)" + (collapse > 1 ? " collapse(" + std::to_string(collapse) + ")" : std::string());
      if (!first_is_loop)
        inst.notes.push_back(n.layout + ": not parallel (the nest does not start with a loop)");
      else if ((region = stream))  // each thread fences its own streamed stores before the region's barrier
        code = "_Pragma(\"omp parallel\") { _Pragma(\"omp for" + clause + " nowait\") ";
      else
        code = "_Pragma(\"omp parallel for" + clause + "\") ";
    }
    for (std::size_t h = 0; h < headers.size(); ++h) {
      if (n.simd && h + 1 == headers.size() && !n.nest.header_loop[h].empty() && !microkernel) code += "_Pragma(\"omp simd\") ";
      code += headers[h] + " ";
    }
    open.code = code + poly::coordinate_declarations(n.nest);
    x.code = std::string(headers.size(), '}');
    if (stream) x.code += region ? " lego_store_fence(); }" : " lego_store_fence();";
  }

  // True when the template text between placeholders `open` and `close` is
  // placeholder `only` and white space.
  bool body_is_only(std::size_t open, std::size_t only, std::size_t close) const {
    const std::string& t = spec_.template_text;
    const auto blank = [&](std::size_t b, std::size_t e) {
      return std::all_of(t.begin() + static_cast<std::ptrdiff_t>(b), t.begin() + static_cast<std::ptrdiff_t>(e),
                         [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
    };
    return blank(spans_[open].second, spans_[only].first) && blank(spans_[only].second, spans_[close].first);
  }

  // Records the access and, for tracing builds, wraps it in LEGO_ACCESS.
  void mark_access(Expansion& x, const std::string& name, bool shared, std::size_t at, std::size_t length, Instance& inst) {
    const bool tensor = std::any_of(inst.tensors.begin(), inst.tensors.end(), [&](const BoundTensor& t) { return t.name == name; });
    if (shared && tensor) fail(at, length, "\"" + name + "\" is a tensor; smem names a layout that stores a __shared__ array");
    if (!shared && !tensor) return;  // an iteration or thread layout: index arithmetic, not memory
    AccessSite a;
    a.site = static_cast<int>(inst.accesses.size());
    a.name = name;
    a.kind = shared                           ? analysis::MemoryKind::Shared
             : spec_.backend == Backend::Cuda ? analysis::MemoryKind::Global
                                              : analysis::MemoryKind::Host;
    a.line = x.line;
    a.column = x.column;
    a.placeholder = x.placeholder;
    if (options_.mark_accesses) x.code = "LEGO_ACCESS(" + std::to_string(a.site) + ", " + name + ", " + x.code + ")";
    inst.accesses.push_back(std::move(a));
  }

  std::map<std::string, std::string> temporaries(const DeriveResult& r, std::size_t ordinal) const {
    std::map<std::string, std::string> names;
    for (const auto& [name, e] : r.temporaries) names[name] = "lego_" + std::to_string(ordinal) + "_" + name;
    return names;
  }

  // `results`: for inv, the number of names declared (the coordinates wanted).
  DeriveResult derive_at(const std::string& layout, const std::vector<std::string>& args, bool inverse, std::size_t at, std::size_t length,
                         std::size_t results = 0) {
    auto it = views_.find(layout);
    if (it == views_.end()) {
      std::string known;
      for (const auto& [name, v] : views_) known += " " + name;
      fail(at, length, "\"" + layout + "\" is not a tensor or layout of kernel " + spec_.name + " (it has:" + known + ")");
    }
    for (const auto& a : args)
      if (!is_identifier(a) && !is_integer(a))
        fail(at, length, "index \"" + a + "\" must be a name or an integer (bind expressions to a name first)");
    DeriveRequest request;
    request.inverse = inverse;
    request.indices = args;
    request.lang = lang_;
    request.strength_reduce = true;
    if (!inverse) in_nests(args, request);
    try {
      // A TileBy iteration layout read with as many coordinates as one tile level has: its untiled view.
      const LayoutAst& ast = it->second.first;
      const std::size_t coordinates = inverse ? results : args.size();
      const bool untiled = coordinates != 0 && coordinates != logical_rank(ast);
      if (untiled && ast.closing != Closing::TileBy)
        fail(at, length, layout + " takes " + std::to_string(logical_rank(ast)) + " indices, got " + std::to_string(coordinates));
      return derive(untiled ? untiled_view(ast, coordinates) : ast, variant_.parameters, request);
    } catch (const LegoError& e) {
      fail(at, length, it->second.second + ": " + e.what());
    }
  }

  // Indices that are coordinates of open loop nests: their definitions over
  // the loop variables (innermost nest first), so the access folds onto them.
  void in_nests(const std::vector<std::string>& args, DeriveRequest& request) const {
    for (const auto& a : args)
      for (auto n = nests_.rbegin(); n != nests_.rend(); ++n) {
        if (n->flat) continue;
        const auto c = std::find(n->names.begin(), n->names.end(), a);
        if (c == n->names.end()) continue;
        auto& terms = request.index_definitions[a];
        for (const auto& l : n->nest.loops)
          if (l.coordinate == c - n->names.begin()) terms.emplace_back(l.var, l.multiplier);
        for (const auto& l : n->nest.loops)
          if (std::none_of(request.loop_variables.begin(), request.loop_variables.end(),
                           [&](const LoopVariable& v) { return v.name == l.var; }))
            request.loop_variables.push_back({l.var, l.extent});
        break;
      }
  }

  const KernelSpec& spec_;
  const Variant& variant_;
  sym::Lang lang_;
  InstantiateOptions options_;
  std::map<std::string, std::pair<LayoutAst, std::string>> views_;
  std::vector<std::pair<std::size_t, std::size_t>> spans_;  // each placeholder's [open, close) in the template
  std::vector<OpenNest> nests_;
  bool uses_microkernels_ = false;
};

}  // namespace

std::string cuda_prelude() {
  // NVRTC has no system headers; nvcc and the tracing C++ build do.
  return "#ifdef __CUDACC_RTC__\ntypedef long long int64_t;\ntypedef int int32_t;\ntypedef unsigned long long uint64_t;\n"
         "typedef unsigned uint32_t;\n#else\n#include <cstdint>\n#include <math.h>\n#endif\n" +
         sym::c_prelude(sym::Lang::Cuda).substr(std::string("#include <math.h>\n#include <stdint.h>\n").size()) + access_macro();
}

Instance instantiate(const KernelSpec& spec, const Variant& variant, sym::Lang lang, const InstantiateOptions& options) {
  return Instantiator(spec, variant, lang, options).run();
}

Instance instantiate_baseline(const KernelSpec& spec, const Baseline& baseline, const Env& parameters) {
  Instance inst;
  inst.kernel = spec.name;
  inst.variant = "baseline:" + baseline.name;
  inst.baseline = true;
  inst.check = baseline.verify;
  inst.library = baseline.library;
  inst.parameters = parameters;
  inst.tolerance = spec.tolerance;
  inst.reference = reference_source(spec, parameters);
  inst.source = "// baseline " + baseline.name + " of kernel " + spec.name + "\n" + parameter_constants(parameters) + "#line 1 \"" +
                baseline.source_name + "\"\n" + baseline.source_text;
  const auto value = [&](const Expr& e, const std::string& what) { return formula_value(spec, e, parameters, what); };
  inst.flops = value(spec.flops, "flops");
  inst.bytes = value(spec.bytes, "bytes");
  for (const auto& t : spec.tensors) {
    BoundTensor b;
    b.name = t.name;
    b.type = t.type;
    b.role = t.role;
    b.layout_name = "row-major";
    b.elements = 1;
    std::string dims;
    for (const auto& e : t.extents) {
      b.extents.push_back(value(e, "extents of " + t.name));
      b.elements *= b.extents.back();
      dims += (dims.empty() ? "" : ", ") + std::to_string(b.extents.back());
    }
    b.view_text = "OrderBy(Row(" + dims + ")).GroupBy([(" + dims + (b.extents.size() == 1 ? ",)" : ")") + "])";
    inst.tensors.push_back(std::move(b));
  }
  return inst;
}

OffsetCode offset_code(const Instance& inst, const BoundTensor& tensor, sym::Lang lang) {
  OffsetCode out;
  for (std::size_t k = 0; k < tensor.extents.size(); ++k) out.indices.push_back("i" + std::to_string(k));
  DeriveRequest request;
  request.indices = out.indices;
  request.lang = lang;
  const DeriveResult d = derive(parse_layout(tensor.view_text), inst.parameters, request);
  for (const auto& [name, e] : d.temporaries) out.declarations += "  const " + d.index_type + " " + name + " = " + e + ";\n";
  out.offset = d.exprs.at(0);
  return out;
}

std::string comment_text(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

}  // namespace lego::kernel
