#include "atom/tv_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "atom/atoms.hpp"
#include "atom/tiled.hpp"
#include "expr/diagnostic.hpp"

namespace lego::atom {

namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// [begin, end) of `text` with the spaces around it dropped.
Span trimmed(std::string_view text, std::size_t begin, std::size_t end) {
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  return Span{begin, end};
}

std::string_view slice(std::string_view text, Span s) { return text.substr(s.begin, s.end - s.begin); }

int positive(std::string_view digits, Span at, std::string_view what) {
  int value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value < 1 || value > 64)
    throw LegoError(
        at, std::string(what) + " is ROWSxCOLS or [ROWS,COLS], each side from 1 to 64, e.g. [2,2]; found '" + std::string(digits) + "'");
  return value;
}

// RxC, [R,C] or (R,C): the command line's form and the layout language's.
void grid(std::string_view text, Span at, std::string_view what, int& rows, int& cols) {
  std::string_view g = slice(text, at);
  const bool listed = g.size() >= 2 && ((g.front() == '[' && g.back() == ']') || (g.front() == '(' && g.back() == ')'));
  if (listed) g = g.substr(1, g.size() - 2);
  const auto x = listed ? g.find(',') : g.find_first_of("xX");
  if (x == std::string_view::npos)
    throw LegoError(at, std::string(what) + " is ROWSxCOLS or [ROWS,COLS], e.g. 2x2; found '" + std::string(slice(text, at)) + "'");
  const auto side = [&](std::string_view digits) {
    const Span s = trimmed(digits, 0, digits.size());
    return positive(slice(digits, s), at, what);
  };
  rows = side(g.substr(0, x));
  cols = side(g.substr(x + 1));
}

}  // namespace

TvSpec parse_tv_spec(std::string_view text) {
  // Split at the commas outside brackets: "name:A, [2,2], [1,2]".
  std::vector<Span> parts;
  std::size_t from = 0;
  std::vector<std::size_t> open;  // where each unclosed bracket is
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[' || c == '(') open.push_back(i);
    if (c == ']' || c == ')') {
      if (open.empty()) throw LegoError(Span{i, i + 1}, std::string("'") + c + "' closes no bracket");
      open.pop_back();
    }
    if (c == ',' && (open.empty() || i == text.size())) {
      if (!open.empty()) throw LegoError(Span{open.back(), open.back() + 1}, "this bracket is never closed");
      parts.push_back(trimmed(text, from, i));
      from = i + 1;
    }
  }
  if (parts.size() > 3)
    throw LegoError(parts[3],
                    "an atom's TV layout takes ATOM:OPERAND, then at most a warp grid and a repeat, e.g. mma.m16n8k16.f16:C, [2,2], [1,2]");
  const std::string_view head = slice(text, parts[0]);
  const auto colon = head.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    throw LegoError(parts[0],
                    "an atom's TV layout is ATOM:OPERAND, e.g. mma.m16n8k16.f16:A or ldmatrix.x4:D; found '" + std::string(head) + "'");
  TvSpec spec;
  const Span name_span = trimmed(text, parts[0].begin, parts[0].begin + colon),
             operand_span = trimmed(text, parts[0].begin + colon + 1, parts[0].end);
  const std::optional<Atom> atom = find_atom(slice(text, name_span));
  if (!atom && slice(text, name_span) == "wgmma.m64nNk16.f16")
    throw LegoError(name_span, "wgmma.m64nNk16.f16 stands for its N: write one, a multiple of 8 from 8 to 256, e.g. wgmma.m64n64k16.f16");
  if (!atom) {
    std::string names;
    for (const auto& n : atom_names()) names += (names.empty() ? "" : ", ") + n;
    throw LegoError(name_span, "unknown atom '" + std::string(slice(text, name_span)) + "'; the atoms are " + names);
  }
  spec.atom = atom->name;
  try {
    std::string operand(slice(text, operand_span));
    for (char& c : operand) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    spec.operand = atom->operand(operand).name;
  } catch (const LegoError& e) {
    throw LegoError(operand_span, e.diagnostic().message);
  }
  if (parts.size() > 1 && atom->operands.front().tv.threads < 32)
    throw LegoError(Span{parts[1].begin, parts.back().end},
                    atom->name + " is a one-thread copy (each thread issues its own); it has no warp grid or repeat to tile");
  if (parts.size() > 1) grid(text, parts[1], "the warp grid", spec.warps_m, spec.warps_n);
  if (parts.size() > 2) grid(text, parts[2], "the repeat", spec.repeat_m, spec.repeat_n);
  // A CTA holds at most 1024 threads: 32 warps, or 8 of wgmma's 128-thread warpgroups.
  const int group = std::max(1, (atom->operands.front().tv.threads + 31) / 32);
  if (spec.warps_m * spec.warps_n * group > 32)
    throw LegoError(parts[1], "a " + std::to_string(spec.warps_m) + " x " + std::to_string(spec.warps_n) + " grid of " +
                                  (group > 1 ? "warpgroups" : "warps") + " is more than the 32 warps (1024 threads) a CTA holds");
  return spec;
}

TvLayout tv_of(const TvSpec& spec) {
  const Atom atom = resolve_atom(spec.atom);
  const Operand& operand = atom.operand(spec.operand);
  const TvLayout& one = operand.tv;
  if (spec.warps_m == 1 && spec.warps_n == 1 && spec.repeat_m == 1 && spec.repeat_n == 1) return one;
  const TiledTable tiled = tile_operand(atom, operand, spec.warps_m, spec.warps_n, spec.repeat_m, spec.repeat_n);
  const int warps_per_atom = (one.threads + 31) / 32;
  TvLayout tv;
  tv.rows = tiled.rows;
  tv.cols = tiled.cols;
  tv.threads = spec.warps_m * spec.warps_n * warps_per_atom * 32;
  tv.values = one.values * spec.repeat_m * spec.repeat_n;
  tv.cells.assign(static_cast<std::size_t>(tv.threads) * static_cast<std::size_t>(tv.values), Coord{-1, -1});
  for (int r = 0; r < tiled.rows; ++r)
    for (int c = 0; c < tiled.cols; ++c) {
      const Holder& h = tiled.at(r, c);
      tv.cells[static_cast<std::size_t>(h.warp * 32 + h.lane) * static_cast<std::size_t>(tv.values) + static_cast<std::size_t>(h.value)] = {
          r, c};
    }
  for (const Coord& c : tv.cells)
    if (c.row < 0)
      throw LegoError("tiling " + spec.atom + ":" + spec.operand +
                      " leaves a thread's value on no element: the atom holds some element twice");
  return tv;
}

}  // namespace lego::atom
