#include <algorithm>
#include <numeric>

#include "layout/ast.hpp"

namespace lego {

std::vector<int> piece_permutation(const Piece& p) {
  std::vector<int> s(p.dims.size());
  std::iota(s.begin(), s.end(), 0);
  if (p.kind == PieceKind::Col) std::reverse(s.begin(), s.end());
  if (p.kind == PieceKind::RegP) return p.perm;
  return s;
}

namespace {

// Between the items of a list: "," (canonical) or ", " (readable).
const char* separator(Spacing spacing) { return spacing == Spacing::Readable ? ", " : ","; }

std::string join(const std::vector<Expr>& v, Spacing spacing) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? separator(spacing) : "") + to_string(v[k]);
  return s;
}

std::string list(const std::vector<Expr>& v, Spacing spacing) { return "[" + join(v, spacing) + "]"; }
std::string tuple(const std::vector<Expr>& v, Spacing spacing) { return "(" + join(v, spacing) + (v.size() == 1 ? ",)" : ")"); }

std::string lambda(const std::vector<std::string>& params, const std::string& body) {
  std::string s = "lambda ";
  for (std::size_t k = 0; k < params.size(); ++k) s += (k ? ", " : "") + params[k];
  return s + ": " + body;
}

std::string genp(const GenPSpec& g, Spacing spacing) {
  if (!g.library.empty()) {
    if (!g.has_param_list) return g.library;
    std::string s = g.library + "(";
    for (std::size_t k = 0; k < g.params.size(); ++k) s += (k ? separator(spacing) : "") + to_string(g.params[k]);
    return s + ")";
  }
  std::string s = lambda(g.apply_params, to_string(g.apply_body));
  if (!g.inv_body.empty()) {
    std::string t = "(";
    for (std::size_t k = 0; k < g.inv_body.size(); ++k) t += (k ? ", " : "") + to_string(g.inv_body[k]);
    t += g.inv_body.size() == 1 ? ",)" : ")";
    s += ", " + lambda(g.inv_params, t);
  }
  return s;
}

bool equal_lists(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!equal(a[k], b[k])) return false;
  return true;
}

bool equal_genp(const GenPSpec& a, const GenPSpec& b) {
  if (a.library != b.library || a.has_param_list != b.has_param_list || !equal_lists(a.params, b.params) ||
      a.apply_params != b.apply_params || a.inv_params != b.inv_params || !equal_lists(a.inv_body, b.inv_body))
    return false;
  if (!a.apply_body || !b.apply_body) return !a.apply_body && !b.apply_body;
  return equal(a.apply_body, b.apply_body);
}

bool equal_piece(const Piece& a, const Piece& b) {
  return a.kind == b.kind && a.cute == b.cute && a.atom == b.atom && equal_lists(a.dims, b.dims) && a.perm == b.perm &&
         equal_genp(a.genp, b.genp);
}

}  // namespace

std::string print(const Piece& p, Spacing spacing) {
  if (!p.atom.empty()) return "Atom(" + p.atom + ")";
  if (!p.cute.empty()) return "CuTe(" + p.cute + ")";
  const char* sep = separator(spacing);
  switch (p.kind) {
    case PieceKind::Row:
      return "Row(" + join(p.dims, spacing) + ")";
    case PieceKind::Col:
      return "Col(" + join(p.dims, spacing) + ")";
    case PieceKind::RegP: {
      std::string perm = "[";
      for (std::size_t k = 0; k < p.perm.size(); ++k) perm += (k ? sep : "") + std::to_string(p.perm[k]);
      return "RegP(" + list(p.dims, spacing) + sep + perm + "])";
    }
    case PieceKind::GenP:
      return "GenP(" + list(p.dims, spacing) + ", " + genp(p.genp, spacing) + ")";
  }
  return {};
}

std::string print(const LayoutAst& l, Spacing spacing) {
  const char* sep = separator(spacing);
  std::string s;
  for (std::size_t k = 0; k < l.chain.size(); ++k) {
    s += k ? ".OrderBy(" : "OrderBy(";
    for (std::size_t p = 0; p < l.chain[k].pieces.size(); ++p) s += (p ? ", " : "") + print(l.chain[k].pieces[p], spacing);
    s += ")";
  }
  if (l.closing == Closing::GroupBy) {
    s += ".GroupBy([";
    for (std::size_t g = 0; g < l.groups.size(); ++g) s += (g ? sep : "") + tuple(l.groups[g], spacing);
    s += "])";
  } else {
    s += ".TileBy(";
    for (std::size_t g = 0; g < l.groups.size(); ++g) s += (g ? sep : "") + list(l.groups[g], spacing);
    s += ")";
  }
  if (l.expand_to) s = "ExpandBy(" + s + ", " + list(*l.expand_to, spacing) + ")";
  return s;
}

bool equal(const LayoutAst& a, const LayoutAst& b) {
  if (a.chain.size() != b.chain.size() || a.closing != b.closing || a.groups.size() != b.groups.size()) return false;
  for (std::size_t k = 0; k < a.chain.size(); ++k) {
    if (a.chain[k].pieces.size() != b.chain[k].pieces.size()) return false;
    for (std::size_t p = 0; p < a.chain[k].pieces.size(); ++p)
      if (!equal_piece(a.chain[k].pieces[p], b.chain[k].pieces[p])) return false;
  }
  for (std::size_t g = 0; g < a.groups.size(); ++g)
    if (!equal_lists(a.groups[g], b.groups[g])) return false;
  if (a.expand_to.has_value() != b.expand_to.has_value()) return false;
  return !a.expand_to || equal_lists(*a.expand_to, *b.expand_to);
}

}  // namespace lego
