#include "poly/loop_nest.hpp"

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <map>
#include <memory>
#include <optional>

#include "layout/bound.hpp"
#include "layout/make_plan.hpp"
#include "poly/isl_context.hpp"

namespace lego::poly {

namespace {

struct Digit {
  std::int64_t radix, multiplier;
  int coordinate;
};

// The inverse's digits, most significant first, or a reason there are none.
std::string linear_digits(const LayoutAst& layout, const Env& env, std::vector<Digit>& digits) {
  LayoutAst inner = layout;
  inner.expand_to.reset();  // ExpandBy narrows by guards; the digits are the expanded layout's
  const Plan plan = make_plan(inner, env);
  if (!plan.has_inverse()) return "the layout is apply-only (injective), so it has no order to visit";
  const auto& steps = plan.inv_steps();
  if (steps.size() != 1 || !steps[0].linear() || steps[0].outputs != plan.rank())
    return "the layout is not one linear step of mixed-radix digits (a GenP piece, or a chain whose radices do not nest)";
  for (auto it = steps[0].digits.rbegin(); it != steps[0].digits.rend(); ++it)
    if (it->radix > 1) digits.push_back({it->radix, it->mult, it->target});
  return "";
}

struct NodeDeleter {
  void operator()(isl_ast_node* n) const { isl_ast_node_free(n); }
};
struct ExprDeleter {
  void operator()(isl_ast_expr* e) const { isl_ast_expr_free(e); }
};
using Node = std::unique_ptr<isl_ast_node, NodeDeleter>;
using AstExpr = std::unique_ptr<isl_ast_expr, ExprDeleter>;

std::string id_name(isl_ast_expr* e) {
  isl_id* id = isl_ast_expr_get_id(e);
  std::string name = isl_id_get_name(id);
  isl_id_free(id);
  return name;
}

std::int64_t int_value(isl_ast_expr* e) {
  isl_val* v = isl_ast_expr_get_val(e);
  const std::int64_t n = isl_val_get_num_si(v);
  isl_val_free(v);
  return n;
}

// C for an ISL AST expression over the loop variables (int64_t arithmetic;
// floor division through the prelude's helpers).
std::string print(isl_ast_expr* e) {
  switch (isl_ast_expr_get_type(e)) {
    case isl_ast_expr_id:
      return id_name(e);
    case isl_ast_expr_int:
      return std::to_string(int_value(e));
    case isl_ast_expr_op:
      break;
    default:
      throw LegoError("ISL's loop AST has an expression LEGO cannot print");
  }
  std::vector<std::string> a;
  for (isl_size k = 0, n = isl_ast_expr_op_get_n_arg(e); k < n; ++k) a.push_back(print(AstExpr(isl_ast_expr_op_get_arg(e, k)).get()));
  const auto binary = [&](const char* op) { return "(" + a.at(0) + " " + op + " " + a.at(1) + ")"; };
  switch (isl_ast_expr_op_get_type(e)) {
    case isl_ast_expr_op_and:
    case isl_ast_expr_op_and_then:
      return binary("&&");
    case isl_ast_expr_op_or:
    case isl_ast_expr_op_or_else:
      return binary("||");
    case isl_ast_expr_op_max:
    case isl_ast_expr_op_min: {
      const char* fn = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_max ? "lego_max(" : "lego_min(";
      std::string out = a.at(0);
      for (std::size_t k = 1; k < a.size(); ++k) out = fn + out + ", " + a[k] + ")";
      return out;
    }
    case isl_ast_expr_op_minus:
      return "(-" + a.at(0) + ")";
    case isl_ast_expr_op_add:
      return binary("+");
    case isl_ast_expr_op_sub:
      return binary("-");
    case isl_ast_expr_op_mul:
      return binary("*");
    case isl_ast_expr_op_div:     // exact
    case isl_ast_expr_op_pdiv_q:  // dividend known non-negative
      return binary("/");
    case isl_ast_expr_op_fdiv_q:
      return "lego_floordiv(" + a.at(0) + ", " + a.at(1) + ")";
    case isl_ast_expr_op_pdiv_r:
    case isl_ast_expr_op_zdiv_r:  // only compared with 0
      return binary("%");
    case isl_ast_expr_op_cond:
    case isl_ast_expr_op_select:
      return "(" + a.at(0) + " ? " + a.at(1) + " : " + a.at(2) + ")";
    case isl_ast_expr_op_eq:
      return binary("==");
    case isl_ast_expr_op_le:
      return binary("<=");
    case isl_ast_expr_op_lt:
      return binary("<");
    case isl_ast_expr_op_ge:
      return binary(">=");
    case isl_ast_expr_op_gt:
      return binary(">");
    default:
      throw LegoError("ISL's loop AST has an operation LEGO cannot print");
  }
}

// Walks the single path from the root to the statement; false when the AST
// is not such a path (a block of several statements, an else branch): the
// caller then uses plain loops and one guard.
bool headers_of(isl_ast_node* node, const std::map<std::string, std::int64_t>& extents, LoopNest& nest) {
  switch (isl_ast_node_get_type(node)) {
    case isl_ast_node_for: {
      const std::string var = print(AstExpr(isl_ast_node_for_get_iterator(node)).get());
      AstExpr init(isl_ast_node_for_get_init(node));
      const Node body(isl_ast_node_for_get_body(node));
      if (isl_ast_node_for_is_degenerate(node) == isl_bool_true) {
        nest.headers.push_back("{ const int64_t " + var + " = " + print(init.get()) + ";");
        nest.header_loop.emplace_back();
        return headers_of(body.get(), extents, nest);
      }
      AstExpr cond(isl_ast_node_for_get_cond(node)), inc(isl_ast_node_for_get_inc(node));
      const bool unit = isl_ast_expr_get_type(inc.get()) == isl_ast_expr_int && int_value(inc.get()) == 1;
      std::string header = "for (int64_t " + var + " = " + print(init.get()) + "; ";
      // A loop over its digit's whole range prints as  v < extent  and may be collapsed or vectorized.
      const bool from_zero = isl_ast_expr_get_type(init.get()) == isl_ast_expr_int && int_value(init.get()) == 0;
      bool whole = false;
      if (from_zero && unit && isl_ast_expr_get_type(cond.get()) == isl_ast_expr_op &&
          isl_ast_expr_op_get_type(cond.get()) == isl_ast_expr_op_le) {
        AstExpr lhs(isl_ast_expr_op_get_arg(cond.get(), 0)), rhs(isl_ast_expr_op_get_arg(cond.get(), 1));
        whole = isl_ast_expr_get_type(lhs.get()) == isl_ast_expr_id && id_name(lhs.get()) == var &&
                isl_ast_expr_get_type(rhs.get()) == isl_ast_expr_int && extents.count(var) && int_value(rhs.get()) + 1 == extents.at(var);
      }
      if (whole) {
        header += var + " < " + std::to_string(extents.at(var)) + "; ++" + var + ") {";
        nest.rectangular.push_back(static_cast<int>(nest.headers.size()));
      } else {
        header += print(cond.get()) + "; " + (unit ? "++" + var : var + " += " + print(inc.get())) + ") {";
      }
      nest.headers.push_back(header);
      nest.header_loop.push_back(var);
      return headers_of(body.get(), extents, nest);
    }
    case isl_ast_node_if: {
      if (isl_ast_node_if_has_else_node(node) == isl_bool_true) return false;
      nest.headers.push_back("if (" + print(AstExpr(isl_ast_node_if_get_cond(node)).get()) + ") {");
      nest.header_loop.emplace_back();
      nest.guarded = true;
      return headers_of(Node(isl_ast_node_if_get_then_node(node)).get(), extents, nest);
    }
    case isl_ast_node_block: {
      isl_ast_node_list* children = isl_ast_node_block_get_children(node);
      const bool one = isl_ast_node_list_n_ast_node(children) == 1;
      const bool ok = one && headers_of(Node(isl_ast_node_list_get_at(children, 0)).get(), extents, nest);
      isl_ast_node_list_free(children);
      return ok;
    }
    case isl_ast_node_mark:
      return headers_of(Node(isl_ast_node_mark_get_node(node)).get(), extents, nest);
    case isl_ast_node_user: {
      // S(v0, v1, ..): every argument must still be its own loop variable.
      AstExpr call(isl_ast_node_user_get_expr(node));
      for (std::size_t k = 0; k < nest.loops.size(); ++k) {
        AstExpr arg(isl_ast_expr_op_get_arg(call.get(), static_cast<int>(k) + 1));
        const std::string value = print(arg.get());
        if (value == nest.loops[k].var) continue;
        nest.headers.push_back("{ const int64_t " + nest.loops[k].var + " = " + value + ";");
        nest.header_loop.emplace_back();
      }
      return true;
    }
    default:
      return false;
  }
}

// ExpandBy: the expanded physical position x (a sum of digits times their
// place values) lies in the original box when each of its row-major
// coordinates over the expanded extents is below the original extent.
std::vector<std::string> expand_guards(const LoopNest& nest, const std::vector<Digit>& digits,
                                       const std::optional<BoundLayout::Expand>& expand, bool isl_syntax) {
  if (!expand) return {};
  const auto& e = *expand;
  std::string x;
  std::int64_t place = 1;
  for (std::size_t s = digits.size(); s-- > 0;) {
    x += (x.empty() ? "" : " + ") + std::to_string(place) + " * " + nest.loops[s].var;
    place *= digits[s].radix;
  }
  std::vector<std::string> guards;
  std::int64_t weight = 1;
  for (std::size_t k = e.expanded.size(); k-- > 0;) {
    if (e.original[k] < e.expanded[k]) {
      const std::string w = std::to_string(weight), n = std::to_string(e.expanded[k]);
      std::string c = isl_syntax ? "floor((" + x + ")/" + w + ")" : "((" + x + ") / " + w + ")";
      if (k > 0) c = isl_syntax ? "(" + c + ") mod " + n : "(" + c + " % " + n + ")";
      guards.push_back(c + (isl_syntax ? " <= " + std::to_string(e.original[k] - 1) : " < " + std::to_string(e.original[k])));
    }
    weight *= e.expanded[k];
  }
  return guards;
}

// Plain loops over every digit's range and the guards in one if.
void box_headers(LoopNest& nest, const std::vector<std::string>& guards) {
  nest.headers.clear();
  nest.header_loop.clear();
  nest.rectangular.clear();
  for (const auto& l : nest.loops) {
    nest.rectangular.push_back(static_cast<int>(nest.headers.size()));
    nest.headers.push_back("for (int64_t " + l.var + " = 0; " + l.var + " < " + std::to_string(l.extent) + "; ++" + l.var + ") {");
    nest.header_loop.push_back(l.var);
  }
  std::string cond;
  for (const auto& g : guards) cond += (cond.empty() ? "" : " && ") + g;
  nest.guarded = !cond.empty();
  if (nest.guarded) {
    nest.headers.push_back("if (" + cond + ") {");
    nest.header_loop.emplace_back();
  }
}

}  // namespace

LoopNestResult build_loop_nest(const LayoutAst& layout, const Env& env, const std::vector<std::string>& coordinates) {
  LoopNestResult result;
  std::vector<Digit> digits;
  result.fallback = linear_digits(layout, env, digits);
  if (!result.fallback.empty()) return result;
  LoopNest& nest = result.nest;
  nest.coordinates = coordinates;
  std::vector<int> levels(coordinates.size(), 0), count(coordinates.size(), 0);
  for (const auto& d : digits)
    if (d.coordinate >= static_cast<int>(coordinates.size())) throw LegoError("the layout has more coordinates than names were given");
  for (const auto& d : digits) ++count[d.coordinate];
  std::map<std::string, std::int64_t> extents;
  for (const auto& d : digits) {
    // A coordinate walked by one unit-step loop is that loop's variable.
    const std::string& c = coordinates[d.coordinate];
    const std::string var = count[d.coordinate] == 1 && d.multiplier == 1 ? c : c + "_" + std::to_string(levels[d.coordinate]++);
    nest.loops.push_back({var, d.radix, d.coordinate, d.multiplier});
    extents[var] = d.radix;
  }

  const std::optional<BoundLayout::Expand> expand = layout.expand_to ? bind(layout, env).expand : std::nullopt;
  const std::vector<std::string> isl_guards = expand_guards(nest, digits, expand, true);
  std::string vars, set = " : ";
  for (const auto& l : nest.loops) {
    vars += (vars.empty() ? "" : ", ") + l.var;
    set += (set.size() > 3 ? " and " : "") + std::string("0 <= ") + l.var + " <= " + std::to_string(l.extent - 1);
  }
  for (const auto& g : isl_guards) set += " and " + g;
  if (nest.loops.empty()) set.clear();  // one element: no loops at all

  IslContext ctx;
  isl_union_set* domain = isl_union_set_read_from_str(ctx.ctx, ("{ S[" + vars + "]" + set + " }").c_str());
  isl_union_map* schedule = isl_union_map_read_from_str(ctx.ctx, ("{ S[" + vars + "] -> [" + vars + "] }").c_str());
  isl_ast_node* root = nullptr;
  if (domain && schedule) {
    schedule = isl_union_map_intersect_domain(schedule, domain);
    domain = nullptr;
    isl_ast_build* build = isl_ast_build_alloc(ctx.ctx);
    isl_id_list* names = isl_id_list_alloc(ctx.ctx, static_cast<int>(nest.loops.size()));
    for (const auto& l : nest.loops) names = isl_id_list_add(names, isl_id_alloc(ctx.ctx, l.var.c_str(), nullptr));
    build = isl_ast_build_set_iterators(build, names);
    root = isl_ast_build_node_from_schedule_map(build, schedule);
    schedule = nullptr;
    isl_ast_build_free(build);
  }
  isl_union_set_free(domain);
  isl_union_map_free(schedule);
  const Node tree(root);
  if (!tree || !headers_of(tree.get(), extents, nest)) box_headers(nest, expand_guards(nest, digits, expand, false));
  return result;
}

std::string coordinate_declarations(const LoopNest& nest) {
  std::string out;
  for (std::size_t c = 0; c < nest.coordinates.size(); ++c) {
    std::string value;
    bool self = false;
    for (const auto& l : nest.loops)
      if (l.coordinate == static_cast<int>(c)) {
        self = l.var == nest.coordinates[c];
        value += (value.empty() ? "" : " + ") + (l.multiplier == 1 ? l.var : std::to_string(l.multiplier) + " * " + l.var);
      }
    if (self) continue;  // the loop variable is the coordinate
    out += (out.empty() ? "" : " ") + std::string("const int64_t ") + nest.coordinates[c] + " = " + (value.empty() ? "0" : value) + ";";
  }
  return out;
}

}  // namespace lego::poly
