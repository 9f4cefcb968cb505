#include "convert_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "command_line.hpp"
#include "convert/emit_cuda.hpp"
#include "convert/planner.hpp"
#include "convert/tv_text.hpp"
#include "expr/diagnostic.hpp"
#include "layout/cute.hpp"

namespace lego::cli {
namespace {

const std::map<std::string, int> kElementBytes = {{"f8", 1},   {"s8", 1},   {"u8", 1},  {"f16", 2},  {"fp16", 2},
                                                  {"half", 2}, {"bf16", 2}, {"f32", 4}, {"fp32", 4}, {"float", 4},
                                                  {"tf32", 4}, {"s32", 4},  {"f64", 8}, {"fp64", 8}, {"double", 8}};
constexpr const char* kElementNames = "f16 (fp16, half), bf16, f32 (fp32, float), tf32, s32, f64 (fp64, double), s8, u8, f8";

std::string buffer_cute(const convert::ConversionReport& r, const convert::ConversionPlan& p) {
  const auto found = cute::from_table_maybe_swizzled({r.rows, r.cols}, p.offsets);
  return found ? cute::to_string(*found) : std::string("(none: not strides, nor strides under a CuTe swizzle)");
}

std::string side_text(const char* what, const convert::SharedSide& s, int bytes) {
  return fmt::format("{}: {} instruction{} a thread of {} element{} ({} bytes); {} wavefronts a warp, {} excess, worst {}-way", what,
                     s.instructions, s.instructions == 1 ? "" : "s", s.vector_elements, s.vector_elements == 1 ? "" : "s",
                     s.vector_elements * bytes, s.wavefronts, s.excess_wavefronts, s.worst_ways);
}

// Thread 0's moves, and whether every thread makes the same ones.
void print_registers(const convert::ConversionPlan& p, std::ostream& out) {
  const bool same = convert::same_in_every_thread(p);
  std::string moves;
  for (std::size_t v = 0; v < p.source_value.front().size(); ++v) moves += fmt::format(" v{}<-v{}", v, p.source_value.front()[v]);
  out << fmt::format("  thread 0:{}{}\n", moves, same ? " (every thread the same)" : " (other threads differ)");
  if (p.cost.selects == 0)
    out << fmt::format("  {} register move{} at most a thread: renames, free once registers are allocated\n", p.cost.register_moves,
                       p.cost.register_moves == 1 ? "" : "s");
  else
    out << fmt::format("  the lanes of a warp take different registers: {} selects a thread pick them by lane\n", p.cost.selects);
}

void print_shuffles(const convert::ConversionPlan& p, std::ostream& out) {
  const auto& rounds = p.rounds.front();
  out << fmt::format("  warp 0: {} round{} of __shfl_sync; per round, the lane each lane reads (and the value it sends):\n", rounds.size(),
                     rounds.size() == 1 ? "" : "s");
  constexpr std::size_t kShown = 4;
  for (std::size_t k = 0; k < rounds.size() && k < kShown; ++k) {
    std::string lanes;
    for (std::size_t l = 0; l < rounds[k].source_lane.size(); ++l)
      if (rounds[k].source_lane[l] >= 0)
        lanes += fmt::format(" {}<-{}.v{}", l, rounds[k].source_lane[l],
                             rounds[k].sent_value[static_cast<std::size_t>(rounds[k].source_lane[l])]);
    out << fmt::format("  round {}:{}\n", k + 1, lanes);
  }
  if (rounds.size() > kShown) out << fmt::format("  ... {} more rounds (--json lists them all)\n", rounds.size() - kShown);
}

nlohmann::ordered_json plan_json(const convert::ConversionReport& r, const convert::ConversionPlan& p) {
  nlohmann::ordered_json j = {{"kind", convert::to_string(p.kind)},
                              {"name", p.name},
                              {"possible", p.possible},
                              {"reason", p.reason},
                              {"cost",
                               {{"score", p.cost.score()},
                                {"shuffles", p.cost.shuffles},
                                {"selects", p.cost.selects},
                                {"shared_instructions", p.cost.shared_instructions},
                                {"wavefronts", p.cost.wavefronts},
                                {"excess_wavefronts", p.cost.excess_wavefronts},
                                {"shared_bytes", p.cost.shared_bytes},
                                {"syncs", p.cost.syncs},
                                {"register_moves", p.cost.register_moves}}}};
  if (!p.possible) return j;
  if (p.kind == convert::PlanKind::Shared) {
    j["buffer"] = {{"name", p.buffer.name}, {"lego", print(p.buffer.layout)}, {"cute", buffer_cute(r, p)}};
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
  // Each file is written beside its name and renamed over it: a link at the
  // name is refused, never followed, and a failure leaves the old file.
  const std::filesystem::path dir(out_dir);
  const std::pair<const char*, const std::string*> written[] = {
      {"convert.cu", &files.cuda}, {"convert.ref.cpp", &files.reference}, {"convert.lego.json", &files.project}};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw LegoError("--out " + out_dir + ": " + ec.message());
  for (const auto& [name, text] : written) {
    const auto status = std::filesystem::symlink_status(dir / name, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) throw LegoError((dir / name).string() + ": " + ec.message());
    if (std::filesystem::is_symlink(status)) throw LegoError((dir / name).string() + " is a symbolic link: not written through");
    if (std::filesystem::exists(status) && !force) throw LegoError((dir / name).string() + " exists: --force replaces it");
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
      throw LegoError((dir / name).string() + " exists and is not a file");
  }
  for (const auto& [name, text] : written) {
    const std::filesystem::path final_path = dir / name, temporary = dir / (std::string(".") + name + ".lego-tmp");
    {
      std::ofstream f(temporary, std::ios::binary | std::ios::trunc);
      f << *text;
      if (!f.flush()) throw LegoError("could not write " + temporary.string());
    }
    std::filesystem::rename(temporary, final_path, ec);
    if (ec) throw LegoError("could not write " + final_path.string() + ": " + ec.message());
  }
  out << fmt::format(
      "wrote the {} plan to {}/convert.cu (device function lego_convert and a test kernel), convert.ref.cpp and "
      "convert.lego.json\nverify it on the CPU emulator: lego bench {}/convert.lego.json\n",
      plan.name, out_dir, out_dir);
  return 0;
}

}  // namespace

bool is_convert_command(const std::string& name) { return name == "convert"; }

int run_convert_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"lego: layout conversions planned and explained (LEGO Studio)"};
  app.option_defaults()->always_capture_default();
  app.require_subcommand(1);
  std::string from_text, to_text, tile_text, elem = "f32", emit, out_dir, plan_name;
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
  cmd->add_option("--tile", tile_text, "ROWSxCOLS of the tile; needed unless FROM or TO is an atom");
  cmd->add_option("--elem", elem,
                  std::string("The element type, one for both sides: ") + kElementNames + ". Its size decides vector widths and banks");
  cmd->add_option("--warps", warps, "Warps holding the tile, for CuTe and LEGO forms (an atom says its own)")->check(CLI::Range(1, 32));
  cmd->add_flag("--json", json, "One JSON object with every plan");
  cmd->add_option("--emit", emit,
                  "cuda: write the plan as a device function lego_convert(src, dst), a test kernel and a project (convert.cu, "
                  "convert.ref.cpp, convert.lego.json) into --out; `lego bench DIR/convert.lego.json` verifies it on the CPU emulator, "
                  "`lego export-bench` takes it to a GPU. Each thread's positions come from tables indexed by the thread: exact for "
                  "any layout and what the test needs; a production kernel computes them, which the cost does not count");
  cmd->add_option("--out", out_dir, "With --emit: the folder to write (created if missing)");
  cmd->add_option("--plan", plan_name,
                  "With --emit: another plan than the chosen one: registers, shuffles, shared (the best buffer) or a plan's name as listed "
                  "(\"shared, row\"); without --emit, that plan's steps are printed");
  cmd->add_flag("--force", force, "With --emit: replace convert.* files already in --out");
  if (const auto status = parse_command_line(app, args, out, err)) return *status;
  try {
    const auto bytes = kElementBytes.find(elem);
    if (bytes == kElementBytes.end()) throw LegoError("--elem " + elem + ": one of " + kElementNames);
    int rows = 0, cols = 0;
    if (!tile_text.empty()) std::tie(rows, cols) = rows_by_columns(tile_text, "--tile", "e.g. 32x32");
    const auto start = std::chrono::steady_clock::now();
    const int threads = 32 * warps;
    // An atom on either side gives the tile to the other.
    convert::TvText from, to;
    if (convert::form_of(from_text) != convert::TvForm::Atom && convert::form_of(to_text) == convert::TvForm::Atom) {
      to = convert::read_tv(to_text, "TO", rows, cols, threads);
      from = convert::read_tv(from_text, "FROM", to.tv.rows, to.tv.cols, to.tv.threads);
    } else {
      from = convert::read_tv(from_text, "FROM", rows, cols, threads);
      to = convert::read_tv(to_text, "TO", from.tv.rows, from.tv.cols, from.tv.threads);
    }
    const convert::ConversionReport r = convert::plan_conversion(from.tv, to.tv, {bytes->second, {}});
    for (const auto& p : r.plans)
      if (p.possible)
        if (const std::string wrong = convert::check_plan(p, from.tv, to.tv); !wrong.empty())
          throw LegoError("the planner's " + p.name + " plan is wrong (a bug; please report it): " + wrong);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!emit.empty()) return emit_files(r, from.tv, to.tv, args, emit, out_dir, plan_name, force, out);
    if (!out_dir.empty() || force) throw LegoError("--out and --force go with --emit cuda");
    if (json) {
      nlohmann::ordered_json plans = nlohmann::ordered_json::array();
      for (const auto& p : r.plans) plans.push_back(plan_json(r, p));
      out << nlohmann::ordered_json{{"tile", {r.rows, r.cols}},
                                    {"threads", r.threads},
                                    {"values", r.values},
                                    {"element", elem},
                                    {"element_bytes", r.element_bytes},
                                    {"checked", true},
                                    {"chosen", r.plans.front().name},
                                    {"plans", plans}}
                 .dump()
          << "\n";
      return 0;
    }
    out << fmt::format("{} x {} {} over {} threads ({} values each): {} plans, planned in {:.0f} ms\n\n", r.rows, r.cols, elem, r.threads,
                       r.values, r.plans.size(), ms);
    const convert::ConversionPlan& chosen = named_plan(r, plan_name);
    out << "plan: " << chosen.name << (&chosen == &r.plans.front() ? "" : " (--plan; not the cheapest)") << "\n";
    switch (chosen.kind) {
      case convert::PlanKind::Registers:
        print_registers(chosen, out);
        break;
      case convert::PlanKind::Shuffles:
        print_shuffles(chosen, out);
        break;
      case convert::PlanKind::Shared:
        out << "  buffer (LEGO): " << print(chosen.buffer.layout) << "\n  buffer (CuTe): " << buffer_cute(r, chosen) << "\n";
        out << "  " << side_text("store FROM", chosen.store, r.element_bytes) << "\n";
        out << "  " << side_text("load TO", chosen.load, r.element_bytes) << "\n";
        out << fmt::format("  {} shared bytes, one barrier between the stores and the loads\n", chosen.cost.shared_bytes);
        break;
    }
    out << "  checked on an iota tile: every thread ends with the elements TO gives it\n\n";
    out << "plans (cost in issue slots a warp: shuffles, shared instructions and excess wavefronts 1, selects 1/4, a barrier 4):\n";
    for (const auto& p : r.plans)
      out << fmt::format("  {:<34} {:>8} {}\n", p.name, p.possible ? fmt::format("{:.1f}", p.cost.score()) : std::string("-"), p.reason);
    return 0;
  } catch (const LegoError& e) {
    err << "lego: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {  // a path the system refuses (too long, a link loop)
    err << "lego: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace lego::cli
