#include "convert_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "command_line.hpp"
#include "convert/emit_cuda.hpp"
#include "convert/explain.hpp"
#include "convert/planner.hpp"
#include "convert/tv_text.hpp"
#include "expr/diagnostic.hpp"
#include "layout/cute.hpp"
#include "run/atomic_file.hpp"

namespace lego::cli {
namespace {

// With --json, a failure is a JSON object too, {"error": MESSAGE}, so that
// a script reading stdout always gets JSON (bytes that are not UTF-8, from a
// path, become U+FFFD).
void print_json_error(std::ostream& out, const std::string& message) {
  out << nlohmann::ordered_json{{"error", message}}.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

nlohmann::ordered_json plan_json(const convert::ConversionReport& r, const convert::ConversionPlan& p) {
  nlohmann::ordered_json j = {{"kind", convert::to_string(p.kind)}, {"name", p.name}, {"possible", p.possible}, {"reason", p.reason}};
  if (!p.possible) {
    j["cost"] = nullptr;  // none: a score of 0 would sort an impossible plan first
    return j;
  }
  j["cost"] = {{"score", p.cost.score()},
               {"shuffles", p.cost.shuffles},
               {"selects", p.cost.selects},
               {"shared_instructions", p.cost.shared_instructions},
               {"wavefronts", p.cost.wavefronts},
               {"excess_wavefronts", p.cost.excess_wavefronts},
               {"shared_bytes", p.cost.shared_bytes},
               {"syncs", p.cost.syncs},
               {"register_moves", p.cost.register_moves}};
  if (p.kind == convert::PlanKind::Shared) {
    j["buffer"] = {{"name", p.buffer.name}, {"lego", print(p.buffer.layout)}, {"cute", convert::buffer_cute_text(r, p)}};
    for (const auto& [key, side] : {std::pair{"store", p.store}, std::pair{"load", p.load}})
      j[key] = {{"vector_elements", side.vector_elements},
                {"instructions", side.instructions},
                {"wavefronts", side.wavefronts},
                {"excess_wavefronts", side.excess_wavefronts},
                {"worst_ways", side.worst_ways}};
  } else if (p.kind == convert::PlanKind::Shuffles) {
    nlohmann::ordered_json warps = nlohmann::ordered_json::array();
    for (const auto& w : p.rounds) {
      nlohmann::ordered_json rounds = nlohmann::ordered_json::array();
      for (const auto& round : w)
        rounds.push_back({{"source_lane", round.source_lane}, {"sent_value", round.sent_value}, {"received_value", round.received_value}});
      warps.push_back(rounds);
    }
    j["rounds"] = warps;
    j["packed"] = p.packed;  // elements one 32-bit shuffle carries: rounds share shuffles in groups of this many
    // Where each value comes from: a lane's own register (an in-lane move before the rounds) or a round's.
    j["source_thread"] = p.source_thread;
    j["source_value"] = p.source_value;
  } else {
    j["source_value"] = p.source_value;
  }
  return j;
}

// The plan --plan names: a kind (the first of that kind, which is the
// cheapest) or a plan's full name.
const convert::ConversionPlan& named_plan(const convert::ConversionReport& r, const std::string& name) {
  if (name.empty()) return r.plans.front();
  for (const auto& p : r.plans)
    if (p.name == name || convert::to_string(p.kind) == name) {
      if (!p.possible) throw LegoError("--plan " + name + " is not possible here: " + p.why_not);
      return p;
    }
  std::string names;
  for (const auto& p : r.plans) names += (names.empty() ? "" : ", ") + ("\"" + p.name + "\"");
  throw LegoError("--plan " + name + ": this conversion's plans are " + names);
}

int emit_files(const convert::ConversionReport& r, const atom::TvLayout& from, const atom::TvLayout& to,
               const std::vector<std::string>& args, const std::string& emit, const std::string& out_dir, const std::string& plan_name,
               bool force, std::ostream& out) {
  if (emit != "cuda") throw LegoError("--emit " + emit + ": only cuda");
  if (out_dir.empty()) throw LegoError("--emit cuda writes three files: give the folder with --out DIR");
  const convert::ConversionPlan& plan = named_plan(r, plan_name);
  std::string command = "lego";
  for (std::size_t k = 1; k < args.size(); ++k) command += " '" + args[k] + "'";
  const convert::EmittedConversion files = convert::emit_cuda(r, plan, from, to, command);
  // run::write_folder, as every export writes: never through a link (the
  // folder, a file in it or a temporary), every check before the first
  // write, each file complete or not there. A folder with other files needs
  // --force.
  std::vector<std::string> replaced;
  run::write_folder(out_dir, {{"convert.cu", files.cuda}, {"convert.ref.cpp", files.reference}, {"convert.lego.json", files.project}},
                    force, &replaced);
  for (const auto& path : replaced) out << "(replaced " << path << ")\n";
  out << fmt::format(
      "wrote the {} plan (PLAN=0) and the other possible plans (PLAN=1, ...) to {}/convert.cu (a device function lego_convert_N for "
      "each plan, and a test kernel), convert.ref.cpp and convert.lego.json\nverify them on the CPU emulator: lego bench "
      "{}/convert.lego.json "
      "--set TILES=3 --set REPEAT=2 (three tiles, each converted twice)\n"
      "time them on a GPU: lego export-bench {}/convert.lego.json --set TILES=65536 --set REPEAT=64 --out BUNDLE\n",
      plan.name, out_dir, out_dir, out_dir);
  return 0;
}

}  // namespace

bool is_convert_command(const std::string& name) { return name == "convert"; }

int run_convert_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"lego: layout conversions planned and explained (LEGO Studio)"};
  app.option_defaults()->always_capture_default();
  app.require_subcommand(1);
  std::string from_text, to_text, tile_text, elem, emit, out_dir, plan_name;
  bool force = false;
  int warps = 1;
  bool json = false;
  auto* cmd = app.add_subcommand(
      "convert",
      "Plan moving a tile from one thread-value layout to another: registers only, warp shuffles, or a shared-memory round trip through "
      "the buffer layout whose stores and loads conflict least; every alternative with its cost, each plan checked on an iota tile");
  cmd->add_option("from", from_text,
                  "The layout the threads hold: an atom's operand (mma.m16n8k16.f16:C, [1,1], [1,2]), a CuTe TV layout "
                  "((threads),(values)):(strides) over the column-major tile, or a LEGO layout of the tile whose offset o is thread o / V, "
                  "value o % V")
      ->required();
  cmd->add_option("to", to_text, "The layout they must hold, in the same forms")->required();
  cmd->add_option("--tile", tile_text, "ROWSxCOLS of the tile; needed unless FROM or TO is an atom or a LEGO layout, which give it");
  cmd->add_option("--elem", elem,
                  std::string("The element type, one for both sides: ") + convert::kElementNames +
                      ". Its size decides vector widths and banks. Default: TO's atom operand's type, else FROM's, else f32; with an atom, "
                      "at most as wide as a side's type (a narrower one is converted in registers)");
  CLI::Option* warps_option =
      cmd->add_option("--warps", warps,
                      "Warps holding a LEGO layout's tile (an atom and a CuTe layout say their own; given, they must agree)")
          ->check(CLI::Range(1, 32));
  cmd->add_flag("--json", json, "One JSON object with every plan");
  cmd->add_option("--emit", emit,
                  "cuda: write the plan (and every other possible plan) as device functions lego_convert_N(src, dst), a test kernel "
                  "and a project (convert.cu, convert.ref.cpp, convert.lego.json; a variant a plan, PLAN=0 the one asked for) into "
                  "--out; `lego bench DIR/convert.lego.json` verifies them on the CPU emulator, `lego export-bench DIR/convert.lego.json "
                  "--set TILES=65536 --set REPEAT=64` times them against each other on a GPU (block b converts tile b REPEAT times). "
                  "Each thread's positions come from tables indexed by the thread: exact for any layout and what the test needs; a "
                  "production kernel computes them, which the cost does not count");
  cmd->add_option("--out", out_dir, "With --emit: the folder to write (created if missing)");
  cmd->add_option("--plan", plan_name,
                  "With --emit: another plan than the chosen one: registers, shuffles, shared (the best buffer) or a plan's name as listed "
                  "(\"shared, row\"); without --emit, that plan's steps are printed");
  cmd->add_flag("--force", force, "With --emit: write into a folder that already holds files, replacing those of the same names");
  {
    std::ostringstream parse_error;
    if (const auto status = parse_command_line(app, args, out, parse_error)) {
      err << parse_error.str();
      // With --json asked for, a command line it cannot read is a JSON error too.
      if (*status != 0 && std::find(args.begin(), args.end(), "--json") != args.end()) {
        std::string message = parse_error.str();
        if (message.rfind("lego: ", 0) == 0) message.erase(0, 6);
        message = message.substr(0, message.find('\n'));
        print_json_error(out, message);
      }
      return *status;
    }
  }
  try {
    try {
      if (!elem.empty()) convert::element_bytes(elem);
    } catch (const LegoError&) {
      throw LegoError("--elem " + elem + ": one of " + convert::kElementNames);
    }
    if (!emit.empty() && json) throw LegoError("--json and --emit: --emit writes files and says where; ask for one at a time");
    convert::ConversionInput input{from_text, to_text, 0, 0, warps, elem, warps_option->count() > 0};
    if (!tile_text.empty()) std::tie(input.rows, input.cols) = rows_by_columns(tile_text, "--tile", "e.g. 32x32");
    const convert::Conversion c = convert::plan_checked(input);
    const convert::ConversionReport& r = c.report;
    const atom::TvLayout &from = c.from.tv, &to = c.to.tv;
    if (!emit.empty()) return emit_files(r, from, to, args, emit, out_dir, plan_name, force, out);
    if (!out_dir.empty() || force) throw LegoError("--out and --force go with --emit cuda");
    if (json) {
      nlohmann::ordered_json plans = nlohmann::ordered_json::array();
      for (const auto& p : r.plans) plans.push_back(plan_json(r, p));
      nlohmann::ordered_json report{{"tile", {r.rows, r.cols}},
                                    {"threads", r.threads},
                                    {"values", r.values},
                                    {"element", c.element},
                                    {"element_bytes", r.element_bytes},
                                    {"checked", true},
                                    {"chosen", r.plans.front().name}};
      if (!c.element_note.empty()) report["element_note"] = c.element_note;
      // --plan: the plan asked for, beside the cheapest (a --plan that names no plan is an error here too).
      if (!plan_name.empty()) report["asked"] = named_plan(r, plan_name).name;
      report["plans"] = plans;
      out << report.dump() << "\n";
      return 0;
    }
    const convert::ConversionPlan& chosen = named_plan(r, plan_name);  // a --plan that names no plan says so before anything is printed
    out << fmt::format("{} x {} {} over {} threads ({} values each): {} plans, planned in {:.0f} ms\n\n", r.rows, r.cols, c.element,
                       r.threads, r.values, r.plans.size(), c.planning_ms);
    if (!c.element_note.empty()) out << "note: " << c.element_note << "\n\n";
    out << "plan: " << chosen.name << (&chosen == &r.plans.front() ? "" : " (--plan; not the cheapest)") << "\n";
    out << convert::movement_text(r, chosen, 4, " (--json lists them all)");
    out << "  checked on an iota tile: every thread ends with the elements TO gives it\n\n";
    out << "plans (cost in issue slots a warp: shuffles, shared instructions and excess wavefronts 1, selects 1/4, a barrier 4):\n";
    for (const auto& p : r.plans)
      out << fmt::format("  {:<34} {:>8} {}\n", p.name, p.possible ? fmt::format("{:.1f}", p.cost.score()) : std::string("-"), p.reason);
    return 0;
  } catch (const LegoError& e) {
    // The evaluator's hint names --bind, which layout commands have and
    // convert does not: its layouts are of one tile, written in numbers.
    std::string message = e.what();
    if (const auto at = message.find(": give it a value (e.g. --bind "); at != std::string::npos)
      message = message.substr(0, at) + ": convert plans a tile of fixed size; write the layout's sizes as numbers";
    err << "lego: " << message << "\n";
    if (json) print_json_error(out, message);
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {  // a path the system refuses (too long, a link loop)
    err << "lego: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace lego::cli
