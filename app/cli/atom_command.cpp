#include "atom_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "atom/atoms.hpp"
#include "command_line.hpp"
#include "expr/diagnostic.hpp"

namespace lego::cli {
namespace {

std::string cute_text(const atom::TvLayout& tv) {
  const auto cute = atom::to_cute(tv);
  return cute ? cute::to_string(*cute) : std::string("(none: no strides give this map)");
}

// What the operand's rows and columns are: PTX's orientation, which for B
// is CuTe's transposed (CuTe writes B as N x K).
std::string orientation(const atom::Atom& a, const atom::Operand& o) {
  if (a.kind != atom::Kind::Mma && a.kind != atom::Kind::Wgmma) return "rows x columns";
  if (o.name == "A") return "M x K";
  if (o.name == "B") return "K x N; CuTe writes B as N x K";
  return "M x N";
}

}  // namespace

// The tile as a grid, each cell `T<thread>V<value>` as CuTe's print_latex
// labels it ("." where no one holds it); rows and columns numbered.
void print_tv_grid(const atom::TvLayout& tv, std::ostream& out) {
  std::vector<std::string> cell(static_cast<std::size_t>(tv.rows * tv.cols), ".");
  for (int t = 0; t < tv.threads; ++t)
    for (int v = 0; v < tv.values; ++v) {
      cell[tv.element(t, v)] = fmt::format("T{}V{}", t, v);
    }
  std::size_t width = std::to_string(tv.cols - 1).size();
  for (const auto& c : cell) width = std::max(width, c.size());
  const std::size_t label = std::to_string(tv.rows - 1).size();
  out << std::string(label, ' ');
  for (int col = 0; col < tv.cols; ++col) out << fmt::format(" {:>{}}", col, width);
  out << "\n";
  for (int row = 0; row < tv.rows; ++row) {
    out << fmt::format("{:>{}}", row, label);
    for (int col = 0; col < tv.cols; ++col) out << fmt::format(" {:>{}}", cell[static_cast<std::size_t>(row * tv.cols + col)], width);
    out << "\n";
  }
}

namespace {

nlohmann::ordered_json operand_json(const atom::Atom& a, const atom::Operand& o) {
  nlohmann::ordered_json tv = nlohmann::ordered_json::array();
  for (int t = 0; t < o.tv.threads; ++t) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (int v = 0; v < o.tv.values; ++v) values.push_back({o.tv.at(t, v).row, o.tv.at(t, v).col});
    tv.push_back(values);
  }
  return {{"shape", {o.tv.rows, o.tv.cols}},
          {"orientation", orientation(a, o)},
          {"element", o.element},
          {"element_bits", o.element_bits},
          {"threads", o.tv.threads},
          {"values", o.tv.values},
          {"cute", cute_text(o.tv)},
          {"tv", tv}};
}

}  // namespace

bool is_atom_command(const std::string& name) { return name == "atom"; }

int run_atom_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"lego: the MMA and copy atoms of GPU kernels as thread-value layouts (LEGO Studio)"};
  app.option_defaults()->always_capture_default();
  app.require_subcommand(1);
  std::string name, operand;
  bool json = false, cute_only = false;
  auto* cmd = app.add_subcommand("atom",
                                 "Print an atom's operands: which thread's which value is each element (T<thread>V<value>), as the PTX "
                                 "ISA's fragment figures give them; without a name, list the atoms");
  cmd->add_option("name", name, "The PTX name: mma.m16n8k16.f16, ldmatrix.x4, cp.async.16, wgmma.m64n128k16.f16, ...");
  cmd->add_option("--operand", operand,
                  "Only this operand: A, B or C (mma), A or C (wgmma: B is read from shared memory), D (ldmatrix, stmatrix, cp.async)");
  cmd->add_flag("--json", json,
                "One JSON object: {\"atom\", \"operands\": {NAME: {\"shape\": [rows, cols], \"tv\": [lane][value] = [row, col], ...}}}");
  cmd->add_flag("--cute", cute_only, "Only each operand's CuTe TV layout ((threads),(values)):(strides), over the column-major tile");
  if (const auto status = parse_command_line(app, args, out, err)) return *status;
  const bool named = cmd->count("name") > 0, operand_given = cmd->count("--operand") > 0;
  try {
    if (named && name.empty()) throw LegoError("the atom's name is empty; `lego atom` alone lists them");
    if (operand_given && operand.empty()) throw LegoError("--operand is empty: A, B or C (mma, wgmma), D (ldmatrix, stmatrix, cp.async)");
    if (json && cute_only) throw LegoError("--json and --cute are two forms of output: choose one (the JSON has each operand's \"cute\")");
    for (char& c : operand) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (name.empty()) {
      if (operand_given || json || cute_only) throw LegoError("--operand, --json and --cute need an atom's name");
      for (const std::string& n : atom::atom_names()) {
        const bool family = n == "wgmma.m64nNk16.f16";  // described at N = 128, printed with N
        std::string description = atom::resolve_atom(family ? "wgmma.m64n128k16.f16" : n).description;
        for (std::size_t at; family && (at = description.find("128")) != std::string::npos;) description.replace(at, 3, "N");
        out << fmt::format("{:<22} {}\n", n, description);
      }
      return 0;
    }
    const atom::Atom a = atom::resolve_atom(name);
    std::vector<const atom::Operand*> shown;
    if (!operand.empty())
      shown.push_back(&a.operand(operand));
    else
      for (const auto& o : a.operands) shown.push_back(&o);
    if (json) {
      nlohmann::ordered_json operands = nlohmann::ordered_json::object();
      for (const auto* o : shown) operands[o->name] = operand_json(a, *o);
      out << nlohmann::ordered_json{{"atom", a.name}, {"description", a.description}, {"operands", operands}}.dump() << "\n";
      return 0;
    }
    if (cute_only) {
      for (const auto* o : shown) out << o->name << " (" << orientation(a, *o) << "): " << cute_text(o->tv) << "\n";
      return 0;
    }
    out << a.name << ": " << a.description << "\n";
    for (const auto* o : shown) {
      out << fmt::format("\n{}: {} x {} {} ({}), {} thread{} x {} value{}; CuTe TV {}\n", o->name, o->tv.rows, o->tv.cols, o->element,
                         orientation(a, *o), o->tv.threads, o->tv.threads == 1 ? "" : "s", o->tv.values, o->tv.values == 1 ? "" : "s",
                         cute_text(o->tv));
      print_tv_grid(o->tv, out);
    }
    return 0;
  } catch (const LegoError& e) {
    err << "lego: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace lego::cli
