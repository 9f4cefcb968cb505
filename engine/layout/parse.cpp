#include "layout/parse.hpp"

#include <map>

#include "atom/tv_spec.hpp"
#include "expr/parser.hpp"
#include "layout/cute.hpp"

namespace lego {

namespace {

class LayoutParser {
 public:
  explicit LayoutParser(std::string_view text) : c_(text) {}

  TokenCursor& cursor() { return c_; }
  std::map<std::string, LayoutAst, std::less<>> named;  // layouts defined so far

  bool at_layout_start() const {
    if (!c_.at(Tok::Ident)) return false;
    const auto t = c_.peek().text;
    return t == "OrderBy" || t == "ExpandBy" || t == "CuTe" || t == "Atom" || (named.count(t) && c_.peek(1).kind != Tok::LParen);
  }

  LayoutAst layout() {
    TokenCursor::DepthGuard guard(c_);
    const std::size_t begin = c_.peek().span.begin;
    if (c_.at_ident("ExpandBy")) {
      c_.next();
      c_.expect(Tok::LParen, "after ExpandBy");
      LayoutAst inner = layout();
      if (inner.expand_to) throw LegoError(inner.span, "ExpandBy cannot be nested");
      c_.expect(Tok::Comma, "between the layout and the original extents in ExpandBy");
      const std::size_t list_begin = c_.peek().span.begin;
      inner.expand_to = extent_list("the original extents, e.g. [10,10]");
      inner.expand_span = Span{list_begin, c_.last_span().end};
      c_.expect(Tok::RParen, "to close ExpandBy");
      inner.span = Span{begin, c_.last_span().end};
      return inner;
    }
    if (c_.at(Tok::Ident) && named.count(c_.peek().text) && !c_.at_ident("OrderBy")) {
      const Token name = c_.next();
      LayoutAst copy = named.find(name.text)->second;
      return copy;
    }
    LayoutAst out;
    if (c_.at_ident("CuTe") || c_.at_ident("Atom")) {
      // A CuTe layout or an atom on its own: one piece grouped by its top-level modes.
      Piece p = piece();
      out.chain.push_back(OrderByAst{{p}, p.span});
      out.groups.push_back(p.dims);
      out.closing_span = out.span = Span{begin, c_.last_span().end};
      return out;
    }
    if (!c_.at_ident("OrderBy")) c_.fail_expected("a layout (OrderBy(...), ExpandBy(...), CuTe(...) or Atom(...))");
    out.chain.push_back(order_by());
    for (;;) {
      if (!c_.at(Tok::Dot)) {
        const auto dims = describe_dims(out.chain.back());
        throw LegoError(c_.peek().span, "expected '.OrderBy(...)', '.GroupBy(...)' or '.TileBy(...)' to continue the chain, found " +
                                            describe(c_.peek()) + "; a chain ends with GroupBy or TileBy, e.g. .GroupBy([(" + dims + ")])");
      }
      c_.next();
      if (c_.at_ident("OrderBy")) {
        out.chain.push_back(order_by());
      } else if (c_.at_ident("GroupBy") || c_.at_ident("TileBy")) {
        closing(out);
        break;
      } else {
        c_.fail_expected("OrderBy, GroupBy or TileBy after '.'");
      }
    }
    out.span = Span{begin, c_.last_span().end};
    return out;
  }

  // [e, ..] optionally followed by "* k", or (e, ..). One level only.
  std::vector<Expr> extent_list(std::string_view what) {
    std::vector<Expr> items;
    Tok close;
    if (c_.accept(Tok::LBracket))
      close = Tok::RBracket;
    else if (c_.accept(Tok::LParen))
      close = Tok::RParen;
    else
      c_.fail_expected(what);
    if (!c_.at(close)) {
      for (;;) {
        items.push_back(parse_expression(c_));
        if (!c_.accept(Tok::Comma)) break;
        if (c_.at(close)) break;  // trailing comma, as in (8,)
      }
    }
    c_.expect(close, close == Tok::RBracket ? "to close the list" : "to close the tuple");
    if (close == Tok::RBracket && c_.at(Tok::Star)) {
      c_.next();
      const Token count_tok = c_.peek();
      Expr count = parse_expression(c_);
      if (!is_const(count) || count->value < 0 || count->value > 64)
        throw LegoError(count->span.known() ? count->span : count_tok.span, "a list repetition count must be an integer from 0 to 64");
      std::vector<Expr> repeated;
      for (std::int64_t k = 0; k < count->value; ++k) repeated.insert(repeated.end(), items.begin(), items.end());
      items = std::move(repeated);
    }
    return items;
  }

 private:
  static std::string describe_dims(const OrderByAst& o) {
    std::string s;
    for (const auto& p : o.pieces)
      for (const auto& d : p.dims) s += (s.empty() ? "" : ",") + to_string(d);
    return s;
  }

  OrderByAst order_by() {
    OrderByAst o;
    const Token kw = c_.next();
    c_.expect(Tok::LParen, "after OrderBy");
    do o.pieces.push_back(piece());
    while (c_.accept(Tok::Comma) && !c_.at(Tok::RParen));
    c_.expect(Tok::RParen, "to close OrderBy (or ',' before another piece)");
    o.span = Span{kw.span.begin, c_.last_span().end};
    return o;
  }

  Piece piece() {
    Piece p;
    if (!c_.at(Tok::Ident))
      c_.fail_expected("a piece: Row(..), Col(..), RegP([..],[..]), GenP([..], f), CuTe(shape:stride) or Atom(name:operand)");
    const Token kw = c_.next();
    if (kw.text == "CuTe") return cute_piece(kw);
    if (kw.text == "Atom") return atom_piece(kw);
    if (kw.text == "Row" || kw.text == "Col") {
      p.kind = kw.text == "Row" ? PieceKind::Row : PieceKind::Col;
      c_.expect(Tok::LParen, "after " + std::string(kw.text));
      if (c_.at(Tok::LBracket)) {
        p.dims = extent_list("extents");
      } else {
        do p.dims.push_back(parse_expression(c_));
        while (c_.accept(Tok::Comma) && !c_.at(Tok::RParen));
      }
      c_.expect(Tok::RParen, "to close " + std::string(kw.text));
    } else if (kw.text == "RegP") {
      p.kind = PieceKind::RegP;
      c_.expect(Tok::LParen, "after RegP");
      p.dims = extent_list("the extents list, e.g. [2,3]");
      c_.expect(Tok::Comma, "between RegP's extents and its permutation");
      const std::size_t perm_begin = c_.peek().span.begin;
      for (const auto& e : extent_list("the permutation list, e.g. [1,0]")) {
        if (!is_const(e) || e->value < -1000000 || e->value > 1000000)
          throw LegoError(e->span, "a permutation entry must be an integer constant");
        p.perm.push_back(static_cast<int>(e->value));
      }
      p.perm_span = Span{perm_begin, c_.last_span().end};
      c_.expect(Tok::RParen, "to close RegP");
    } else if (kw.text == "GenP") {
      p.kind = PieceKind::GenP;
      c_.expect(Tok::LParen, "after GenP");
      p.dims = extent_list("the extents list, e.g. [n,n]");
      c_.expect(Tok::Comma, "between GenP's extents and its function");
      genp_function(p.genp);
      c_.expect(Tok::RParen, "to close GenP");
    } else {
      throw LegoError(kw.span, "unknown piece '" + std::string(kw.text) + "'; pieces are Row, Col, RegP, GenP, CuTe and Atom");
    }
    p.span = Span{kw.span.begin, c_.last_span().end};
    return p;
  }

  // The text between `kw(` and its matching ')', taken as written.
  struct RawArgument {
    std::string text;
    std::size_t from = 0;  // where it starts in the source
    Span whole;            // kw through ')'
  };
  RawArgument raw_argument(const Token& kw) {
    const Token open = c_.expect(Tok::LParen, "after " + std::string(kw.text));
    int depth = 1;
    Span close{};
    while (depth > 0) {
      if (c_.at(Tok::End)) c_.fail_expected("')' to close " + std::string(kw.text));
      const Token t = c_.next();
      depth += t.kind == Tok::LParen ? 1 : t.kind == Tok::RParen ? -1 : 0;
      close = t.span;
    }
    const std::size_t from = open.span.end;
    return {std::string(c_.source().substr(from, close.begin - from)), from, Span{kw.span.begin, close.end}};
  }

  // Atom(mma.m16n8k16.f16:A, 2x2): an atom's TV layout (atom/tv_spec) as
  // the CuTe piece of its table over (threads, values). Errors point into
  // the atom's text.
  Piece atom_piece(const Token& kw) {
    const RawArgument arg = raw_argument(kw);
    std::optional<cute::Layout> cute;
    try {
      const atom::TvLayout tv = atom::tv_of(atom::parse_tv_spec(arg.text));
      cute = atom::to_cute(tv);
      if (!cute) throw LegoError("this TV layout has no CuTe form (no strides reproduce its table)");
    } catch (const LegoError& e) {
      const Diagnostic& d = e.diagnostic();
      throw LegoError(d.span.known() ? Span{arg.from + d.span.begin, arg.from + d.span.end} : arg.whole, "Atom: " + d.message);
    }
    const std::string equivalent = cute::to_lego_piece(*cute);
    LayoutParser inner(equivalent);
    Piece p = inner.piece();
    p.atom = arg.text;
    p.span = arg.whole;
    if (p.kind == PieceKind::GenP) p.genp.span = arg.whole;
    return p;
  }

  // CuTe(Sw<3,4,3> o (8,64):(64,1)): CuTe's notation taken as written up to
  // the matching ')', read by cute::parse and held as the equivalent piece
  // over its top-level modes. Errors point into the CuTe text.
  Piece cute_piece(const Token& kw) {
    const RawArgument arg = raw_argument(kw);
    const std::string& text = arg.text;
    const std::size_t from = arg.from;
    const Span whole = arg.whole;
    std::string equivalent;
    try {
      equivalent = cute::to_lego_piece(cute::parse(text));
    } catch (const LegoError& e) {
      const Diagnostic& d = e.diagnostic();
      std::string why = d.message;
      if (why.rfind("column ", 0) == 0 && why.find(": ") != std::string::npos) why = why.substr(why.find(": ") + 2);
      throw LegoError(d.span.known() ? Span{from + d.span.begin, from + d.span.end} : whole, "CuTe layout: " + why);
    }
    LayoutParser inner(equivalent);
    Piece p = inner.piece();
    p.cute = text;
    p.span = whole;
    if (p.kind == PieceKind::GenP) p.genp.span = whole;
    return p;
  }

  void genp_function(GenPSpec& g) {
    const std::size_t begin = c_.peek().span.begin;
    bool has_apply = false;
    for (int arg = 0; arg < 2; ++arg) {
      if (arg == 1 && !c_.accept(Tok::Comma)) break;
      std::string keyword;
      if (c_.at(Tok::Ident) && c_.peek(1).kind == Tok::Assign) {
        keyword = std::string(c_.next().text);
        c_.next();
        if (keyword != "apply" && keyword != "inv") throw LegoError(c_.last_span(), "GenP takes apply= and inv=, not " + keyword + "=");
      }
      const bool is_inv = keyword == "inv" || (keyword.empty() && arg == 1);
      if (c_.at_ident("lambda")) {
        if (is_inv) {
          if (!has_apply) throw LegoError(c_.peek().span, "give the apply lambda before the inv lambda");
          lambda(g.inv_params, g.inv_body, true);
        } else {
          std::vector<Expr> body;
          lambda(g.apply_params, body, false);
          g.apply_body = body[0];
          has_apply = true;
        }
      } else if (!is_inv && arg == 0 && c_.at(Tok::Ident)) {
        const Token name = c_.next();
        g.library = std::string(name.text);
        if (c_.accept(Tok::LParen)) {
          g.has_param_list = true;
          if (!c_.at(Tok::RParen)) {
            do g.params.push_back(parse_expression(c_));
            while (c_.accept(Tok::Comma));
          }
          c_.expect(Tok::RParen, "to close the GenP parameters");
        }
        break;  // a library entry carries its own inverse
      } else {
        c_.fail_expected(
            is_inv ? "an inv lambda, e.g. lambda x: (x // n, x % n)"
                   : "a GenP function: a library name (antidiag, reverse, morton, swizzle(B,M,S), skew, cyclic(b,p)) or a lambda");
      }
    }
    g.span = Span{begin, c_.last_span().end};
  }

  void lambda(std::vector<std::string>& params, std::vector<Expr>& body, bool tuple_allowed) {
    c_.next();  // lambda
    do {
      const Token t = c_.expect(Tok::Ident, "as a lambda parameter");
      params.emplace_back(t.text);
    } while (c_.accept(Tok::Comma));
    c_.expect(Tok::Colon, "after the lambda parameters");
    if (tuple_allowed && c_.at(Tok::LParen)) {
      const std::size_t mark = c_.mark();
      c_.next();
      Expr first = parse_expression(c_);
      if (c_.accept(Tok::Comma)) {
        body.push_back(first);
        while (!c_.at(Tok::RParen)) {
          body.push_back(parse_expression(c_));
          if (!c_.accept(Tok::Comma)) break;
        }
        c_.expect(Tok::RParen, "to close the tuple");
        return;
      }
      c_.reset(mark);
    }
    body.push_back(parse_expression(c_));
  }

  void closing(LayoutAst& out) {
    const Token kw = c_.next();
    c_.expect(Tok::LParen, "after " + std::string(kw.text));
    if (kw.text == "GroupBy") {
      out.closing = Closing::GroupBy;
      c_.expect(Tok::LBracket, "to open GroupBy's list of groups, as in GroupBy([(6,6)])");
      if (!c_.at(Tok::RBracket)) {
        for (;;) {
          if (!c_.at(Tok::LParen) && !c_.at(Tok::LBracket)) c_.fail_expected("a group tuple such as (6,6)");
          out.groups.push_back(extent_list("a group tuple"));
          if (!c_.accept(Tok::Comma) || c_.at(Tok::RBracket)) break;
        }
      }
      c_.expect(Tok::RBracket, "to close GroupBy's list of groups");
    } else {
      out.closing = Closing::TileBy;
      do out.groups.push_back(extent_list("a tile level list such as [4,4]"));
      while (c_.accept(Tok::Comma) && !c_.at(Tok::RParen));
    }
    c_.expect(Tok::RParen, "to close " + std::string(kw.text));
    out.closing_span = Span{kw.span.begin, c_.last_span().end};
  }

  TokenCursor c_;
};

// The lexer reads the whole text first; a grid written 2x2 inside Atom(...)
// (the command line's form) fails there as a malformed number.
LayoutParser lexed(std::string_view text) {
  try {
    return LayoutParser(text);
  } catch (const LegoError& e) {
    const Span at = e.diagnostic().span;
    const std::string_view word = at.known() && at.end <= text.size() ? text.substr(at.begin, at.end - at.begin) : std::string_view();
    const std::size_t atom = text.rfind("Atom(", at.begin);
    if (atom == std::string_view::npos || word.find_first_of("xX") == std::string_view::npos) throw;
    throw LegoError(at, "Atom: write a warp grid or repeat as [ROWS,COLS], e.g. [2,2] (2x2 is the command line's form)");
  }
}

}  // namespace

LayoutAst parse_layout(std::string_view text) {
  LayoutParser p = lexed(text);
  LayoutAst l = p.layout();
  if (!p.cursor().at(Tok::End)) p.cursor().fail_expected("end of input after the layout");
  return l;
}

Program parse_program(std::string_view text) {
  LayoutParser p = lexed(text);
  TokenCursor& c = p.cursor();
  Program prog;
  std::map<std::string, Span, std::less<>> defined;
  while (!c.at(Tok::End)) {
    if (c.accept(Tok::Semicolon)) continue;
    if (prog.result) throw LegoError(c.peek().span, "nothing may follow the final bare layout; name it with 'let' to define more");
    if (c.at_ident("let")) {
      c.next();
      const Token name = c.expect(Tok::Ident, "after 'let'");
      if (auto it = defined.find(name.text); it != defined.end())
        throw LegoError(name.span, "'" + std::string(name.text) + "' is already defined at line " +
                                       std::to_string(line_column(text, it->second.begin).line));
      c.expect(Tok::Assign, "after the name in 'let'");
      Definition d{std::string(name.text), name.span, Expr{}};
      if (p.at_layout_start()) {
        LayoutAst l = p.layout();
        p.named[d.name] = l;
        d.value = std::move(l);
      } else {
        d.value = parse_expression(c);
      }
      defined[d.name] = d.span;
      prog.definitions.push_back(std::move(d));
    } else if (c.at_ident("where")) {
      c.next();
      prog.constraints.push_back(parse_expression(c));
    } else if (p.at_layout_start()) {
      prog.result = p.layout();
    } else {
      c.fail_expected("'let', 'where' or a layout");
    }
    if (!c.at(Tok::End) && !c.accept(Tok::Semicolon) && !c.at_ident("let") && !c.at_ident("where"))
      c.fail_expected("';' or a new statement");
  }
  return prog;
}

Env evaluate_program_env(const Program& program, const Env& bindings) {
  Env env = bindings;
  for (const auto& d : program.definitions) {
    if (const Expr* e = std::get_if<Expr>(&d.value)) {
      if (!bindings.count(d.name)) env[d.name] = evaluate(*e, env);
    }
  }
  for (const auto& w : program.constraints)
    if (!evaluate(w, env)) throw LegoError(w->span, "constraint 'where " + to_string(w) + "' does not hold for these sizes");
  return env;
}

const LayoutAst& select_layout(const Program& program, std::string_view name) {
  if (!name.empty()) {
    for (const auto& d : program.definitions)
      if (d.name == name) {
        if (const auto* l = std::get_if<LayoutAst>(&d.value)) return *l;
        throw LegoError(d.span, "'" + d.name + "' is an integer, not a layout");
      }
    throw LegoError("no layout named '" + std::string(name) + "' in the file");
  }
  if (program.result) return *program.result;
  for (auto it = program.definitions.rbegin(); it != program.definitions.rend(); ++it)
    if (const auto* l = std::get_if<LayoutAst>(&it->value)) return *l;
  throw LegoError("the file defines no layout");
}

}  // namespace lego
