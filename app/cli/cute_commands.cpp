#include "cute_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "atom/atoms.hpp"
#include "atom/tv_layout.hpp"
#include "atom/tv_spec.hpp"
#include "atom_command.hpp"
#include "bindings.hpp"
#include "command_line.hpp"
#include "expr/diagnostic.hpp"
#include "layout/cute.hpp"
#include "layout/linear.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::cli {

namespace {

// "GenP antidiag" for the first GenP of a layout text that has one (plain
// string search: std::regex trips GCC's -Wmaybe-uninitialized under ASan).
std::string genp_piece(const std::string& text) {
  const auto at = text.find("GenP(");
  if (at == std::string::npos) return {};
  const auto close = text.find(']', at);
  if (close == std::string::npos) return {};
  auto first = text.find_first_not_of(" ,\t", close + 1);
  if (first == std::string::npos) return {};
  auto last = first;
  while (last < text.size() && (std::isalnum(static_cast<unsigned char>(text[last])) || text[last] == '_')) ++last;
  return last > first ? "GenP " + text.substr(first, last - first) : std::string();
}

}  // namespace

bool is_cute_command(const std::string& name) { return name == "from-cute" || name == "to-cute" || name == "to-linear"; }

int run_cute_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"lego: CuTe layouts in and out (LEGO Studio)"};
  app.option_defaults()->always_capture_default();  // --help shows each default
  app.require_subcommand(1);
  std::string text;
  std::vector<std::string> sets;
  auto* from = app.add_subcommand("from-cute",
                                  "Print a CuTe layout, e.g. '(4,8):(8,1)', '((2,4),(2,2)):((1,8),(2,4))' or 'Sw<3,4,3> o (8,64):(64,1)', "
                                  "in the layout language (its logical shape is the top-level modes)");
  from->add_option("layout", text, "The CuTe layout as CuTe prints it")->required();
  std::string tv_tile;
  bool tv_operand = false;
  from->add_option("--tv", tv_tile,
                   "Read it as a thread-value layout ((threads),(values)):(strides) over a ROWSxCOLS tile (its column-major "
                   "index), e.g. --tv 16x16 for ((4,8),(2,2,2)):((32,1),(16,8,128)); prints which thread's which value each element is");
  auto* to = app.add_subcommand("to-cute", "Print a layout's CuTe form, when it has one (strides per dimension, CuTe's swizzle)");
  to->add_option("layout", text, "A layout in the layout language (or with --tv, ATOM:OPERAND[, WARPS[, REPEATS]])")->required();
  to->add_flag("--tv", tv_operand,
               "The layout is an atom's operand, e.g. mma.m16n8k16.f16:A, or a TiledMMA of it, e.g. 'mma.m16n8k16.f16:C, 2x2, 1x2' (warps, "
               "repeats): print its CuTe TV layout");
  to->add_option("--set", sets, "Bind a size, e.g. --set N=8 (repeatable)");
  // The layout commands bind with --bind (and an unbound size's error says so): both forms are taken.
  std::string binds;
  to->add_option("--bind", binds, "Bind sizes as the layout commands do, e.g. --bind N=8,B=2");
  auto* linear = app.add_subcommand("to-linear",
                                    "Print a power-of-two layout linear over GF(2) (rows, columns, tiles, XOR swizzles) as the bases "
                                    "of a Triton LinearLayout: the offset each input bit maps to");
  linear->add_option("layout", text, "A layout in the layout language")->required();
  linear->add_option("--set", sets, "Bind a size, e.g. --set N=8 (repeatable)");
  linear->add_option("--bind", binds, "Bind sizes as the layout commands do, e.g. --bind N=8,B=2");
  if (const auto status = parse_command_line(app, args, out, err)) return *status;
  try {
    if (from->parsed() && !tv_tile.empty()) {
      const auto [rows, cols] = rows_by_columns(tv_tile, "--tv", "the tile the TV layout covers, e.g. 16x16");
      const atom::TvLayout tv = atom::from_cute(cute::parse(text), rows, cols);
      out << fmt::format("{} threads x {} values over a {} x {} tile{}\n", tv.threads, tv.values, rows, cols,
                         tv.covers_tile_once() ? ", each element held once" : "; not every element is held exactly once");
      print_tv_grid(tv, out);
      return 0;
    }
    if (from->parsed()) {
      const cute::Layout layout = cute::parse(text);
      out << cute::to_lego(layout) << "\n";
      return 0;
    }
    if (to->parsed() && tv_operand) {
      const atom::TvSpec spec = atom::parse_tv_spec(text);
      const auto cute = atom::to_cute(atom::tv_of(spec));
      if (!cute) throw LegoError(text + " has no CuTe TV form (no strides give its table)");
      out << cute::to_string(*cute) << "\n";
      return 0;
    }
    if (text.empty()) throw LegoError("to-cute needs a layout");
    refuse_a_path_as_layout_text(text, false);
    Env sizes = parse_sets(sets);
    for (const auto& [name, value] : parse_bindings(binds)) sizes[name] = value;
    const Plan plan = make_plan(parse_layout(text), sizes);
    if (plan.size() > (std::int64_t{1} << 20)) throw LegoError("this command reads the layout's table: at most 2^20 elements");
    std::vector<std::int64_t> table(static_cast<std::size_t>(plan.size()));
    plan.apply_all(table.data());
    if (linear->parsed()) {
      const LinearBases bases = linear_bases(plan.shape(), table);
      if (!bases.linear()) {
        err << "lego: no linear layout: " << bases.why_not << "\n";
        return 2;
      }
      out << to_string(bases, plan.physical_size());
      return 0;
    }
    const std::optional<cute::Layout> found = cute::from_table_maybe_swizzled(plan.shape(), table);
    if (!found) {
      const std::string piece = genp_piece(text);
      err << "lego: no CuTe form: " << (piece.empty() ? "the layout" : piece)
          << "'s offsets are neither a sum of per-dimension strides nor such a sum under a CuTe swizzle\n";
      return 2;
    }
    out << cute::to_string(*found) << "\n";
    return 0;
  } catch (const LegoError& e) {
    err << "lego: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace lego::cli
