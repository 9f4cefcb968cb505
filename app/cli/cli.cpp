#include "cli.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/atom_walks.hpp"
#include "analysis/banks.hpp"
#include "analysis/banks_json.hpp"
#include "atom_command.hpp"
#include "bindings.hpp"
#include "convert_command.hpp"
#include "cute_commands.hpp"
#include "expr/parser.hpp"
#include "expr/text_file.hpp"
#include "layout/derive.hpp"
#include "layout/genp.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/shape.hpp"
#include "layout/symbolic.hpp"
#include "layout/symbolic_check.hpp"
#include "layout/verify.hpp"
#include "poly/isl_layout.hpp"
#include "poly/isl_prover.hpp"
#include "smem_command.hpp"
#include "sym/print.hpp"
#include "table_output.hpp"

namespace lego::cli {

namespace {

constexpr std::int64_t kMaxTable = std::int64_t{1} << 26;

// Where the layout text came from, kept for diagnostics.
struct Source {
  std::string text;
  std::string origin;  // file path, or "<layout>"
};

struct LayoutOptions {
  std::string layout;
  std::string file;
  std::string name;
  std::string bind;
  std::int64_t max_check = kExhaustiveLimit;
};

void add_layout_options(CLI::App* cmd, LayoutOptions& o) {
  cmd->add_option("layout", o.layout, "Layout text, e.g. 'OrderBy(Row(4,4)).GroupBy([(4,4)])' (may start with let/where)");
  cmd->add_option("-f,--file", o.file, "Read a layout program (let/where definitions) from a file instead");
  cmd->add_option("--name", o.name, "Which layout definition of the program to use (default: the last one)");
  cmd->add_option("--bind", o.bind, "Values for symbols, e.g. n=8,B=2 (override the program's lets)");
  cmd->add_option("--max-check", o.max_check,
                  "Largest user GenP or layout checked exhaustively, in elements (default 2^28; larger ones are not checked)")
      ->check(CLI::Range(std::int64_t{1}, kMaxExhaustiveLimit));
}

// Ctrl-C during a long exhaustive check stops it cleanly (exit 130) instead
// of killing the process mid-write.
std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted.store(true); }

class InterruptibleChecks {
 public:
  InterruptibleChecks(std::int64_t limit, std::ostream& err)
      : scope_(CheckControl{limit, std::int64_t{1} << 24, [&err, this](std::int64_t done, std::int64_t total) { report(err, done, total); },
                            &interrupted}) {
    interrupted.store(false);
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_);
  }
  ~InterruptibleChecks() { sigaction(SIGINT, &previous_, nullptr); }
  InterruptibleChecks(const InterruptibleChecks&) = delete;
  InterruptibleChecks& operator=(const InterruptibleChecks&) = delete;

 private:
  // One line per tenth, so that a log and a terminal both read well.
  void report(std::ostream& err, std::int64_t done, std::int64_t total) {
    const int tenth = static_cast<int>(done * 10 / total);
    if (total != total_) total_ = total, tenth_ = 0;
    if (tenth <= tenth_) return;
    tenth_ = tenth;
    err << fmt::format("checking {} elements exhaustively: {}% (Ctrl-C stops; --max-check sets the limit)\n", total, tenth * 10)
        << std::flush;
  }
  ScopedCheckControl scope_;
  struct sigaction previous_ {};
  std::int64_t total_ = 0;
  int tenth_ = 0;
};

Source load_source(const LayoutOptions& o) {
  if (!o.file.empty() && !o.layout.empty()) throw LegoError("give the layout either as text or with --file, not both");
  if (!o.file.empty()) {
    return {read_regular_file(o.file, "layout program", kMaxSourceBytes), o.file};
  }
  if (o.layout.empty()) throw LegoError("no layout given; pass it as text or with --file (see --help)");
  refuse_a_path_as_layout_text(o.layout, true);
  return {o.layout, "<layout>"};
}

// The program, its sizes (file defaults overridden by --bind) and the chosen
// layout, read once for every command.
struct Loaded {
  Program program;
  Env env;
  std::string name;
  const LayoutAst& layout() const { return select_layout(program, name); }
};

Loaded load(const LayoutOptions& o, const Source& src) {
  const Env bindings = parse_bindings(o.bind);
  Loaded l{parse_program(src.text), {}, o.name};
  l.env = evaluate_program_env(l.program, bindings);
  return l;
}

void require_table_size(const Plan& plan) {
  if (plan.size() > kMaxTable || plan.physical_size() > kMaxTable)
    throw LegoError(fmt::format("the layout has {} elements; tables are limited to {} (use 'lego eval' for single indices)",
                                std::max(plan.size(), plan.physical_size()), kMaxTable));
}

std::vector<std::string> split_clauses(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string clause; std::getline(ss, clause, ';');)
    if (clause.find_first_not_of(" \t") != std::string::npos) out.push_back(clause);
  return out;
}

// The program's where clauses plus --where; a clause whose symbols are all
// bound must hold.
std::vector<Expr> constraints_of(const Program& program, const std::string& where, const Env& env) {
  std::vector<Expr> constraints = program.constraints;
  for (const auto& clause : split_clauses(where)) {
    Expr c;
    try {
      c = parse_expression(clause);
    } catch (const LegoError& e) {
      throw LegoError("--where '" + clause + "': " + e.diagnostic().message);
    }
    std::set<std::string> symbols;
    collect_symbols(c, symbols);
    if (std::all_of(symbols.begin(), symbols.end(), [&](const std::string& n) { return env.count(n) > 0; }) && !evaluate(c, env))
      throw LegoError("--where '" + clause + "' does not hold for these sizes");
    constraints.push_back(c);
  }
  return constraints;
}

// The ISL verdict, as one JSON object or one "isl" line of the text output.
std::string isl_json(const poly::IslVerdict& v) {
  nlohmann::ordered_json j = {{"verdict", poly::to_string(v.status)}, {"evidence", v.evidence}, {"inverse_exact", v.inverse_exact}};
  if (!v.counterexample.empty()) j["counterexample"] = v.counterexample;
  return j.dump();
}

std::string isl_text(const poly::IslVerdict& v) {
  return fmt::format("isl       {}: {}{}\n", poly::to_string(v.status), v.evidence,
                     v.counterexample.empty() ? "" : ", e.g. " + v.counterexample);
}

int run_symbolic_check(const LayoutAst& layout, const Env& env, const std::vector<Expr>& constraints, bool json, std::ostream& out) {
  const SymbolicVerdict v = check_symbolic(layout, env, constraints);
  const poly::IslVerdict isl = poly::isl_check_layout(layout, env, constraints);
  const char* verdict = v.proved || isl.status == poly::IslStatus::Bijective ? "bijective"
                        : isl.status == poly::IslStatus::NotBijective        ? "not bijective"
                                                                             : "unknown";
  if (json) {
    out << fmt::format(R"({{"verdict":"{}","evidence":{},"size":{},"class":"{}","symbolic":true,"isl":{}}})", verdict,
                       nlohmann::json(v.evidence).dump(), nlohmann::json(v.size).dump(), to_string(v.layout_class), isl_json(isl))
        << "\n";
  } else {
    out << fmt::format("shape     {}\nsize      {}\nclass     {}\nverdict   {}: {}\n", v.shape, v.size, to_string(v.layout_class), verdict,
                       v.proved                                   ? v.evidence
                       : isl.status != poly::IslStatus::Undecided ? "decided by ISL (below)"
                                                                  : v.evidence)
        << isl_text(isl);
  }
  return isl.status == poly::IslStatus::NotBijective ? 2 : 0;
}

struct ExprRequest {
  std::string apply, inv, lang, where, prover;
  bool ops, json, has_apply, has_inv, explain;
};

// --explain: each rewrite with its rule, then how often each rule fired.
void print_explanation(const DeriveResult& result, bool json, std::ostream& out) {
  if (json) {
    nlohmann::ordered_json steps = nlohmann::ordered_json::array(), hits = nlohmann::ordered_json::object();
    for (const auto& s : result.steps)
      steps.push_back({{"rule", s.rule}, {"before", s.before}, {"after", s.after}, {"proved", s.condition}});
    for (const auto& [rule, n] : result.rule_hits) hits[rule] = n;
    out << nlohmann::ordered_json{{"steps", steps}, {"rule_hits", hits}}.dump() << "\n";
    return;
  }
  out << "# rewrites (rule: before -> after [the side condition proved]), outer ones first:\n";
  if (result.steps.empty()) out << "#   none: no rule's side condition was proved\n";
  for (const auto& s : result.steps) out << "#   " << to_string(s) << "\n";
  std::string hits;
  for (const auto& [rule, n] : result.rule_hits) hits += (hits.empty() ? "" : ", ") + rule + " x" + std::to_string(n);
  if (!hits.empty()) out << "# rules fired: " << hits << "\n";
}

// `lego expr`: index arguments are integers or symbols; a symbol's range is
// the extent of its position in the layout.
int run_expr(const Loaded& loaded, const ExprRequest& r, std::chrono::steady_clock::time_point start, std::ostream& out) {
  if (!r.has_apply && !r.has_inv) throw LegoError("expr needs --apply I,J,.. or --inv X (symbols or integers)");
  const std::vector<Expr> constraints = constraints_of(loaded.program, r.where, loaded.env);
  DeriveRequest request;
  request.inverse = r.has_inv;
  request.indices = split_names(r.has_apply ? r.apply : r.inv, r.has_apply ? "--apply" : "--inv");
  request.constraints = constraints;
  request.explain = r.explain;
  static const std::map<std::string, sym::Lang> langs = {{"c", sym::Lang::C},
                                                         {"cuda", sym::Lang::Cuda},
                                                         {"python", sym::Lang::Python},
                                                         {"triton", sym::Lang::Triton},
                                                         {"mlir", sym::Lang::Mlir}};
  request.lang = langs.at(r.lang);  // CLI11 checked the name
  poly::IslProver isl;
  if (r.prover == "isl") request.second_prover = [&isl](sym::Ref e, const sym::Facts& f) { return isl.nonneg(e, f); };
  const DeriveResult result = derive(loaded.layout(), loaded.env, request);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (r.json) {
    std::string exprs;
    for (const auto& p : result.exprs) exprs += (exprs.empty() ? "" : ",") + nlohmann::json(p).dump();
    std::string temps;
    for (const auto& [name, e] : result.temporaries) temps += (temps.empty() ? "" : ",") + nlohmann::json::array({name, e}).dump();
    out << fmt::format("{{\"exprs\":[{}],\"ops\":{},\"ms\":{:.3f}{}}}\n", exprs, result.ops, ms,
                       temps.empty() ? "" : ",\"temps\":[" + temps + "]");
    if (r.explain) print_explanation(result, true, out);
    return 0;
  }
  for (const auto& a : result.assumptions) out << "# assumes " << a << "\n";
  if (request.lang == sym::Lang::C || request.lang == sym::Lang::Cuda)
    out << "// index type: " << result.index_type
        << (result.index_type == "int32_t" ? " (every intermediate value is proved to fit)\n" : " (int32 not proved to suffice)\n");
  for (const auto& [name, e] : result.temporaries)
    out << (request.lang == sym::Lang::Triton ? name + " = " + e : "const " + result.index_type + " " + name + " = " + e + ";") << "\n";
  for (const auto& p : result.exprs) out << p << "\n";
  if (r.ops) out << "# ops: " << result.ops << "\n";
  if (r.explain) print_explanation(result, false, out);
  return 0;
}

int run_banks(const Plan& plan, int bytes, const std::string& atom_name, bool heatmap, bool json, std::ostream& out) {
  if (plan.rank() != 2) throw LegoError("lego banks analyzes 2-D buffers; this layout has rank " + std::to_string(plan.rank()));
  if (plan.layout().expand) throw LegoError("lego banks needs a complete layout (no ExpandBy)");
  // An atom's walk (ldmatrix's 16-byte matrix rows, cp.async's vectors) in place of the element walks.
  const auto walks = atom_name.empty() ? analysis::standard_walks(plan, bytes)
                                       : std::vector<analysis::WalkReport>{analysis::atom_walk(plan, bytes, atom::resolve_atom(atom_name))};
  if (json) {
    out << analysis::bank_walks_json(walks, bytes) << "\n";
    return 0;
  }
  out << fmt::format("{:<16}{:>7}{:>8}{:>8}{:>12}{:>12}\n", "walk", "steps", "worst", "mean", "excess wf", "worst step");
  for (const auto& w : walks)
    out << fmt::format("{:<16}{:>7}{:>7}x{:>8.2f}{:>12}{:>12}\n", w.name, w.steps, w.report.max_ways, w.report.mean_ways,
                       w.report.excess_wavefronts, w.report.worst_step);
  if (heatmap)
    for (const auto& w : walks) {
      out << "\n" << w.name << ", step " << w.report.worst_step << ": lanes (rows) x banks (columns), words taken\n";
      for (const auto& row : w.report.worst_lane_bank) {
        for (auto v : row) out << (v == 0 ? '.' : v < 10 ? static_cast<char>('0' + v) : '+');
        out << "\n";
      }
    }
  return 0;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.size() > 1 && is_cute_command(args[1])) return run_cute_command(args, out, err);
  if (args.size() > 1 && is_atom_command(args[1])) return run_atom_command(args, out, err);
  if (args.size() > 1 && is_smem_command(args[1])) return run_smem_command(args, out, err);
  if (args.size() > 1 && is_convert_command(args[1])) return run_convert_command(args, out, err);
  CLI::App app{"lego: the LEGO layout algebra on the command line (LEGO Studio)"};
  app.option_defaults()->always_capture_default();  // --help shows each default
  app.require_subcommand(1);
  app.footer(
      "Layout language (the paper's notation):\n"
      "  OrderBy(Row(6,6)).GroupBy([(6,6)])                      row-major 6x6\n"
      "  OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])     2x2 grid of 3x3 blocks\n"
      "  OrderBy(Row(N//B,N//B), Row(B,B)).TileBy([N//B]*2,[B]*2) tiles, bind N and B\n"
      "  OrderBy(GenP([n,n], antidiag)).TileBy([n,n])             anti-diagonal order\n"
      "GenP library:\n" +
      genp_library_help() +
      "\nKernel commands (see 'lego bench --help'):\n"
      "  lego bench PROJECT.lego.json [--kernel K]   compile, verify and time every variant\n"
      "  lego ceilings [--target T]                  the machine's bandwidth and FMA roofs\n"
      "  lego targets                                the CPUs --target accepts (bench, ceilings, export, analyze, suggest, submit)\n"
      "  lego suggest PROJECT.lego.json --layout BUFFER   layouts for one buffer, ranked on the kernel's traced accesses\n"
      "  lego export PROJECT.lego.json --kernel K --variant ID|best --out DIR\n"
      "  lego analyze PROJECT.lego.json [--kernel K] [--variant ID] [--json]   bank conflicts, sectors, cache lines; NVRTC resources\n"
      "  lego export-bench PROJECT.lego.json --out DIR   CUDA variants + harness + Makefile for a remote GPU\n"
      "  lego import-results PROJECT.lego.json results.json   merge the bundle's results into the project\n"
      "  lego submit PROJECT.lego.json --kernel K --slurm    the variants as a Slurm job array (see 'lego submit --help')\n"
      "  lego collect PROJECT.lego.json [--wait]            merge the job's results as its tasks finish\n"
      "CuTe and Triton layouts:\n"
      "  lego from-cute 'Sw<3,4,3> o (8,64):(64,1)'     a CuTe layout in the layout language\n"
      "  lego to-cute LAYOUT | lego to-linear LAYOUT   its CuTe form; its Triton linear-layout bases\n"
      "GPU atoms (thread-value layouts of mma.sync, ldmatrix, stmatrix, cp.async, wgmma):\n"
      "  lego atom [NAME] [--operand A] [--json] [--cute]   which lane holds which element; no NAME: the list\n"
      "  lego convert FROM TO [--tile RxC] [--elem f16] [--warps N]   moving a tile between thread-value layouts, planned\n"
      "Shared memory:\n"
      "  lego banks '<layout>' [--bytes 4|8|16] [--heatmap]  bank conflicts of row, column and anti-diagonal walks\n"
      "  lego banks '<layout>' --bytes 2 --atom ldmatrix.x4   ... of an atom's walk (ldmatrix, stmatrix, cp.async)\n"
      "  lego smem-layout 128B --bytes 2 --tile 64x64 [--tma] [--atom ldmatrix.x4]   Hopper's swizzled shared layouts\n");

  LayoutOptions table_opts, check_opts, eval_opts;
  bool table_json_flag = false, check_json = false;
  auto* table = app.add_subcommand("table", "Print the physical index of every logical index (grid; slices above rank 2)");
  add_layout_options(table, table_opts);
  table->add_flag("--json", table_json_flag, "One JSON object: logical_shape, apply (row-major), inv (omitted for apply-only layouts)");

  auto* check = app.add_subcommand("check", "Bijectivity verdict with evidence, size and class (affine / quasi-affine / general)");
  add_layout_options(check, check_opts);
  check->add_flag("--json", check_json, "Print the verdict as JSON");
  std::string check_where;
  check->add_option("--where", check_where, "Constraints on unbound sizes, ';'-separated, e.g. 'N % B == 0'");

  std::string apply_text, inv_text;
  auto* eval = app.add_subcommand("eval", "Evaluate apply at one logical index or inv at one physical index");
  add_layout_options(eval, eval_opts);
  auto* apply_opt = eval->add_option("--apply", apply_text, "Logical index, e.g. 1,2");
  auto* inv_opt = eval->add_option("--inv", inv_text, "Physical index, e.g. 7");
  apply_opt->excludes(inv_opt);

  LayoutOptions expr_opts;
  std::string expr_apply, expr_inv, expr_lang = "c", expr_where, expr_prover = "isl";
  bool expr_ops = false, expr_json = false, expr_explain = false;
  auto* expr = app.add_subcommand("expr", "Derive, simplify and print the index expression of apply or inv");
  add_layout_options(expr, expr_opts);
  auto* expr_apply_opt =
      expr->add_option("--apply", expr_apply, "Logical index: symbols (ranges come from the layout) or integers, e.g. i,j");
  auto* expr_inv_opt = expr->add_option("--inv", expr_inv, "Physical index: a symbol or an integer, e.g. x");
  expr_apply_opt->excludes(expr_inv_opt);
  expr->add_option("--where", expr_where, "Constraints on sizes, ';'-separated, e.g. 'N % B == 0; N >= 64'");
  expr->add_option("--lang", expr_lang, "Output language: c, cuda, python, triton (':' indexes a whole dimension), mlir (a func.func)")
      ->check(CLI::IsMember({"c", "cuda", "python", "triton", "mlir"}));
  expr->add_flag("--ops", expr_ops, "Also print the number of arithmetic operations");
  expr->add_option("--prover", expr_prover, "Side conditions: 'isl' (intervals, then ISL) or 'intervals' only")
      ->check(CLI::IsMember({"isl", "intervals"}));
  expr->add_flag("--json", expr_json, "Print {\"exprs\":[..], \"ops\":N, \"ms\":T}");
  expr->add_flag("--explain", expr_explain,
                 "Also print each rewrite the simplifier made (rule: before -> after) and how often each rule fired; with --json, a "
                 "second line {\"steps\":[..], \"rule_hits\":{..}}");

  LayoutOptions banks_opts;
  int banks_bytes = 4;
  bool banks_json = false, banks_heatmap = false;
  auto* banks = app.add_subcommand("banks",
                                   "Shared-memory bank conflicts of a 2-D buffer stored by the layout, walked by a warp along rows, "
                                   "columns and anti-diagonals (32 lanes per step)");
  add_layout_options(banks, banks_opts);
  std::string banks_atom;
  banks
      ->add_option(
          "--bytes", banks_bytes,
          "Bytes per element (and per lane access without --atom): 2 (with --atom; the default with ldmatrix and stmatrix), 4, 8 or 16")
      ->check(CLI::IsMember({2, 4, 8, 16}));
  banks->add_option("--atom", banks_atom,
                    "Walk the buffer with a warp's atom instead: ldmatrix.x1/.x2/.x4(.trans), stmatrix.x4 (16-bit elements, --bytes 2) "
                    "or cp.async.4/8/16 (lego atom lists them)");
  banks->add_flag("--heatmap", banks_heatmap, "Also print lanes x banks of each walk's worst step");
  banks->add_flag("--json", banks_json, "Print the reports as JSON");

  std::vector<std::string> argv_storage = args;
  std::vector<const char*> argv;
  for (const auto& a : argv_storage) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "lego: " << e.what() << "\nRun 'lego --help' for usage.\n";
    return 2;
  }

  const LayoutOptions& opts = table->parsed()   ? table_opts
                              : check->parsed() ? check_opts
                              : expr->parsed()  ? expr_opts
                              : banks->parsed() ? banks_opts
                                                : eval_opts;
  Source src;
  try {
    const InterruptibleChecks checks(opts.max_check, err);
    const auto start = std::chrono::steady_clock::now();
    src = load_source(opts);
    const Loaded loaded = load(opts, src);
    if (expr->parsed()) {
      ExprRequest request{expr_apply,
                          expr_inv,
                          expr_lang,
                          expr_where,
                          expr_prover,
                          expr_ops,
                          expr_json,
                          expr_apply_opt->count() > 0,
                          expr_inv_opt->count() > 0,
                          expr_explain};
      return run_expr(loaded, request, start, out);
    }
    std::vector<Expr> constraints;
    if (check->parsed()) {
      // Also checks every clause whose sizes are all bound.
      constraints = constraints_of(loaded.program, check_where, loaded.env);
      if (!free_symbols(loaded.layout(), loaded.env).empty())
        return run_symbolic_check(loaded.layout(), loaded.env, constraints, check_json, out);
    }
    const Plan plan = make_plan(loaded.layout(), loaded.env);
    if (banks->parsed()) {
      if (banks_bytes == 2 && banks_atom.empty())
        throw LegoError(
            "--bytes 2 needs --atom: a warp's lanes read 4, 8 or 16 bytes each, and 16-bit elements come in pairs or ldmatrix rows");
      // ldmatrix and stmatrix move 16-bit elements: with one of them and no --bytes, the buffer holds those.
      if (!banks_atom.empty() && banks->count("--bytes") == 0) {
        const atom::Kind kind = atom::resolve_atom(banks_atom).kind;
        if (kind == atom::Kind::Ldmatrix || kind == atom::Kind::Stmatrix) banks_bytes = 2;
      }
      return run_banks(plan, banks_bytes, banks_atom, banks_heatmap, banks_json, out);
    }
    if (table->parsed()) {
      require_table_size(plan);
      out << (table_json_flag ? table_json(plan) : table_text(plan));
      return 0;
    }
    if (check->parsed()) {
      BijectivityReport r = check_bijective(plan);
      const char* verdict = !r.checked ? "unknown" : r.bijective ? "bijective" : "not bijective";
      // An apply-only layout is injective (padding) or a broadcast by design.
      if (plan.layout().injective && r.checked && !r.bijective) {
        const bool broadcast = r.evidence.rfind("not injective", 0) == 0;
        verdict = broadcast ? "broadcast" : "injective";
        if (!broadcast)
          r.evidence = fmt::format("every index has its own offset; {} of the footprint's {} offsets are padding",
                                   plan.physical_size() - plan.size(), plan.physical_size());
      }
      const std::string kind = plan.layout().injective ? "apply-only" : plan.layout().expand ? "partial (ExpandBy)" : "bijection";
      const poly::IslVerdict isl = poly::isl_check_layout(loaded.layout(), loaded.env, constraints);
      // Past --max-check, ISL's refutation decides: a layout not one-to-one
      // and onto, or whose inverse is not apply's (as the exhaustive check
      // would have found, exit 2).
      const bool isl_refutes = isl.status == poly::IslStatus::NotBijective || isl.inverse_refuted;
      if (!r.checked && isl_refutes && !plan.layout().injective) {
        verdict = "not bijective";
        r.evidence = "ISL refutes it (" + isl.evidence + "); the exhaustive check is past --max-check";
      }
      if (check_json) {
        out << fmt::format(R"({{"verdict":"{}","evidence":"{}","size":{},"physical_size":{},"class":"{}","kind":"{}","isl":{}}})", verdict,
                           r.evidence, plan.size(), plan.physical_size(), to_string(plan.classify()), kind, isl_json(isl))
            << "\n";
      } else {
        out << fmt::format("shape     {}\nsize      {}\n", index_text(plan.shape()), plan.size());
        if (plan.physical_size() != plan.size())
          out << fmt::format("physical  {} ({})\n", plan.physical_size(),
                             plan.layout().expand ? "ExpandBy narrows the box" : "the footprint: largest offset + 1");
        out << fmt::format("class     {}\nkind      {}\nverdict   {}: {}\n", to_string(plan.classify()), kind, verdict, r.evidence)
            << isl_text(isl);
      }
      // The exhaustive check decides where it ran; past --max-check, ISL's
      // refutation does (it exits 2 as the exhaustive one would).
      const bool refuted = r.checked ? !r.bijective : isl_refutes;
      if (refuted && !plan.layout().injective) return 2;
      // Neither the exhaustive check (past --max-check) nor ISL decided: a
      // result with a hole, exit 1, never the 0 of a layout shown sound.
      const bool decided = r.checked || (isl.status == poly::IslStatus::Bijective && isl.inverse_exact) || plan.layout().injective;
      return decided ? 0 : 1;
    }
    if (!apply_opt->count() && !inv_opt->count()) throw LegoError("eval needs --apply I,J,.. or --inv X");
    if (apply_opt->count()) {
      const auto idx = parse_index_list(apply_text, "--apply");
      const std::int64_t x = plan.apply_checked(idx);
      out << "apply" << index_text(idx) << " = " << (x < 0 ? std::string("-1 (outside the original box)") : std::to_string(x)) << "\n";
    } else {
      const auto x = parse_index_list(inv_text, "--inv");
      if (x.size() != 1) throw LegoError("--inv takes one physical index");
      const auto idx = plan.inv_checked(x[0]);  // before writing, so an error leaves stdout empty
      out << "inv(" << x[0] << ") = " << index_text(idx) << "\n";
    }
    return 0;
  } catch (const LegoError& e) {
    // An error without a location is about the command line, not the text.
    err << format_diagnostic(src.text, e.diagnostic(), e.diagnostic().span.known() ? src.origin : "lego");
    return 2;
  } catch (const CheckCancelled& e) {
    err << "lego: interrupted: " << e.what() << "\n";
    return 130;
  } catch (const std::bad_alloc&) {
    err << "error: out of memory; the layout is too large for this command\n";
    return 2;
  } catch (const std::exception& e) {
    err << "internal error: " << e.what() << " (this is a bug in lego; please report it with the command line)\n";
    return 70;
  }
}

}  // namespace lego::cli
