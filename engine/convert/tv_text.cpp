#include "convert/tv_text.hpp"

#include <cctype>

#include "atom/atoms.hpp"
#include "atom/tv_spec.hpp"
#include "convert/planner.hpp"
#include "expr/diagnostic.hpp"
#include "expr/lexer.hpp"
#include "layout/candidates.hpp"
#include "layout/cute.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::convert {

namespace {

// Atom(...) and CuTe(...) around the whole text, as the layout language
// writes an atom's or a CuTe layout's TV layout: the text inside and where
// it starts; the text itself (at 0) otherwise.
std::pair<std::string, std::size_t> unwrapped(const std::string& text) {
  std::size_t at = 0;
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  for (const char* wrapper : {"Atom", "CuTe"}) {
    const std::size_t n = std::char_traits<char>::length(wrapper);
    if (text.compare(at, n, wrapper) != 0) continue;
    std::size_t open = at + n;
    while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open]))) ++open;
    if (open >= text.size() || text[open] != '(') continue;
    std::size_t close = text.find_last_not_of(" \t\r\n");
    if (close == std::string::npos || close <= open || text[close] != ')') continue;
    return {text.substr(open + 1, close - open - 1), open + 1};
  }
  return {text, 0};
}

}  // namespace

TvForm form_of(const std::string& wrapped) {
  const std::string text = unwrapped(wrapped).first;
  std::size_t at = 0;
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  if (at < text.size() && (text[at] == '(' || text.compare(at, 3, "Sw<") == 0)) return TvForm::Cute;
  // An atom's name has dots and an operand after a colon; layout language has neither before its first '('.
  const std::size_t colon = text.find(':'), paren = text.find('(');
  if (colon != std::string::npos && (paren == std::string::npos || colon < paren) && text.find('.') < colon) return TvForm::Atom;
  // An atom's name without its operand ("mma.m16n8k16.f16"): read as an atom, so the error asks for the operand.
  const std::size_t dot = text.find('.');
  if (dot != std::string::npos && (paren == std::string::npos || dot < paren)) return TvForm::Atom;
  return TvForm::Lego;
}

std::optional<std::string> atom_element(const std::string& text) {
  if (form_of(text) != TvForm::Atom) return std::nullopt;
  try {
    const atom::TvSpec spec = atom::parse_tv_spec(unwrapped(text).first);
    const std::string element = atom::resolve_atom(spec.atom).operand(spec.operand).element;
    // The untyped 16- and 8-bit registers of ldmatrix, stmatrix and cp.async move halves and bytes.
    if (element == "b16") return "f16";
    if (element == "b8") return "s8";
    return element;
  } catch (const LegoError&) {
    return std::nullopt;
  }
}

namespace {

void check_tile(const atom::TvLayout& tv, const std::string& what) {
  if (tv.covers_tile_once()) return;
  // Say which element: the first that two (thread, value)s hold, else the first none holds.
  const std::string head =
      what + " does not hold every element of its " + std::to_string(tv.rows) + " x " + std::to_string(tv.cols) + " tile exactly once: ";
  std::vector<int> holder(static_cast<std::size_t>(tv.rows) * static_cast<std::size_t>(tv.cols), -1);
  for (int t = 0; t < tv.threads; ++t)
    for (int v = 0; v < tv.values; ++v) {
      const atom::Coord c = tv.at(t, v);
      if (c.row < 0 || c.row >= tv.rows || c.col < 0 || c.col >= tv.cols)
        throw LegoError(head + "thread " + std::to_string(t) + " value " + std::to_string(v) + " is outside it");
      int& h = holder[tv.element(t, v)];
      if (h >= 0)
        throw LegoError(head + "element (" + std::to_string(c.row) + ", " + std::to_string(c.col) + ") is held by thread " +
                        std::to_string(h / tv.values) + " value " + std::to_string(h % tv.values) + " and by thread " + std::to_string(t) +
                        " value " + std::to_string(v));
      h = t * tv.values + v;
    }
  for (std::size_t e = 0; e < holder.size(); ++e)
    if (holder[e] < 0)
      throw LegoError(head + "no thread holds element (" + std::to_string(e / static_cast<std::size_t>(tv.cols)) + ", " +
                      std::to_string(e % static_cast<std::size_t>(tv.cols)) + ")");
  throw LegoError(head + "a conversion needs a layout of the whole tile");
}

atom::TvLayout from_lego(const std::string& text, const std::string& what, int rows, int cols, int threads) {
  // A tiled layout (TileBy, as a buffer's text prints) is read by its tile coordinates, as accesses read it.
  // (as_buffer_reads_it keeps a 2-D layout as it is; one with neither form 2-D stays, for the error below.)
  LayoutAst ast = parse_layout(text);
  try {
    ast = as_buffer_reads_it(ast);
  } catch (const LegoError&) {
  }
  const Plan plan = make_plan(ast, {});
  const auto shape_text = [&] {
    std::string s;
    for (const auto e : plan.shape()) s += (s.empty() ? "" : " x ") + std::to_string(e);
    return s;
  };
  if (plan.rank() != 2) throw LegoError(what + " is a layout of a 2-D tile; this one's shape is " + shape_text());
  if (rows < 1 || cols < 1) {  // the layout's own shape is the tile
    if (plan.shape()[0] > atom::kMaxTileElements || plan.shape()[1] > atom::kMaxTileElements || plan.size() > atom::kMaxTileElements)
      throw LegoError(what + "'s tile " + shape_text() + " is more than " + std::to_string(atom::kMaxTileElements) + " elements");
    rows = static_cast<int>(plan.shape()[0]);
    cols = static_cast<int>(plan.shape()[1]);
  }
  const std::int64_t elements = static_cast<std::int64_t>(rows) * cols;
  // Refused before every element is placed: a long expression over a large tile takes minutes.
  if (elements > kMaxConversionElements)
    throw LegoError("a " + std::to_string(rows) + " x " + std::to_string(cols) +
                    " tile is more than a CTA holds in registers; plan tiles of at most " + std::to_string(kMaxConversionElements) +
                    " elements");
  if (threads < 1 || elements % threads != 0)
    throw LegoError(what + ": " + std::to_string(elements) + " elements do not split evenly over " + std::to_string(threads) + " threads");
  const int values = static_cast<int>(elements / threads);
  if (plan.shape()[0] != rows || plan.shape()[1] != cols)
    throw LegoError("the tile is " + std::to_string(rows) + " x " + std::to_string(cols) + " (--tile, or the other side's), but " + what +
                    "'s layout is " + shape_text());
  atom::TvLayout tv{rows, cols, threads, values, std::vector<atom::Coord>(static_cast<std::size_t>(elements), atom::Coord{-1, -1})};
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const std::int64_t idx[2] = {r, c};
      const std::int64_t o = plan.apply(idx);
      if (o < 0 || o >= elements)
        throw LegoError(what + " puts element (" + std::to_string(r) + ", " + std::to_string(c) + ") at " + std::to_string(o) +
                        ", outside the tile's " + std::to_string(elements) + " places (padding has no thread to hold it)");
      atom::Coord& cell = tv.cells[static_cast<std::size_t>(o)];
      if (cell.row >= 0)
        throw LegoError(what + " puts elements (" + std::to_string(cell.row) + ", " + std::to_string(cell.col) + ") and (" +
                        std::to_string(r) + ", " + std::to_string(c) + ") both at " + std::to_string(o) +
                        ": a thread-value layout holds each element once (the layout is not one-to-one)");
      cell = {r, c};
    }
  return tv;
}

// How to tile this atom to the tile asked for: its own name, with the
// repeats that reach the tile where they can.
std::string tiling_hint(const std::string& text, const atom::TvLayout& tile, int rows, int cols) {
  std::string name = text.substr(0, text.find(','));
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
  std::string example = "; tile an atom as NAME:OPERAND, [WARPS_M,WARPS_N], [REPEATS_M,REPEATS_N]";
  if (rows > 0 && cols > 0 && tile.rows > 0 && tile.cols > 0 && rows % tile.rows == 0 && cols % tile.cols == 0)
    example += ", e.g. " + name + ", [1,1], [" + std::to_string(rows / tile.rows) + "," + std::to_string(cols / tile.cols) + "] for " +
               std::to_string(rows) + " x " + std::to_string(cols);
  return example;
}

}  // namespace

TvText read_tv(const std::string& written, const std::string& what, int rows, int cols, int threads) {
  const auto [text, text_at] = unwrapped(written);
  TvText out;
  out.form = form_of(text);
  try {
    switch (out.form) {
      case TvForm::Atom:
        out.tv = atom::tv_of(atom::parse_tv_spec(text));
        if ((rows || cols) && (out.tv.rows != rows || out.tv.cols != cols))
          throw LegoError("its tile is " + std::to_string(out.tv.rows) + " x " + std::to_string(out.tv.cols) + ", not " +
                          std::to_string(rows) + " x " + std::to_string(cols) + " (--tile, or the other side's)");
        break;
      case TvForm::Cute:
        if (rows < 1 || cols < 1) throw LegoError("a CuTe TV layout needs the tile: give --tile RxC");
        {
          const cute::Layout layout = cute::parse(text);
          if (layout.swizzle)
            throw LegoError("a thread-value layout maps threads and values into the tile; a swizzle belongs to a shared buffer's layout");
          out.tv = atom::from_cute(layout, rows, cols);
        }
        break;
      case TvForm::Lego:
        // A layout built of Atom(...) or CuTe(...) pieces maps threads and values, where this form maps the tile's
        // elements: the two would be read as each other.
        for (const Token& t : tokenize(text))
          if (t.kind == Tok::Ident && (t.text == "Atom" || t.text == "CuTe"))
            throw LegoError(t.span, "an " + std::string(t.text) +
                                        "(...) piece is a thread-value layout, and this form is a layout of the tile's "
                                        "elements: give the " +
                                        (t.text == "Atom" ? "atom" : "CuTe layout") + " alone, as " + std::string(t.text) +
                                        "(...) or bare");
        out.tv = from_lego(text, what, rows, cols, threads);
        break;
    }
  } catch (const LegoError& e) {
    std::string message = e.what();
    if (message.rfind(what, 0) == 0) throw;
    // An operand alone gives a different tile than the other side's tiled atom: say how to tile it.
    if (out.form == TvForm::Atom && message.rfind("its tile is", 0) == 0) message += tiling_hint(text, out.tv, rows, cols);
    // The place in the text, where the parser knew it (the CuTe parser says it itself).
    Span at = e.diagnostic().span;
    if (at.known()) at = {at.begin + text_at, at.end + text_at};  // in the text as written, wrapper and all
    if (at.known() && message.rfind("column ", 0) != 0) message = "column " + std::to_string(at.begin + 1) + ": " + message;
    throw LegoError(at, what + " (" + written + "): " + message);
  }
  check_tile(out.tv, what);
  return out;
}

}  // namespace lego::convert
