#include "kernel_commands.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "command_line.hpp"
#include "expr/text_file.hpp"
#include "kernel/bounded_json.hpp"
#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "layout/derive.hpp"
#include "layout/parse.hpp"
#include "project/results.hpp"
#include "run/analyze.hpp"
#include "run/bench_bundle.hpp"
#include "run/ceilings.hpp"
#include "run/element_check.hpp"
#include "run/executor.hpp"
#include "run/export.hpp"
#include "run/jit.hpp"
#include "run/libraries.hpp"
#include "run/protocol.hpp"
#include "run/sweep.hpp"
#include "run/sweep_driver.hpp"
#include "run/trace.hpp"
#include "run/triton_bundle.hpp"
#include "run/worker_client.hpp"
#include "search/strategy.hpp"
#include "search_command.hpp"
#include "side_by_side_text.hpp"
#include "space_options.hpp"
#include "suggest_command.hpp"

namespace lego::cli {
namespace {

// The part of a message a table row has room for: "the kernel does not
// compile: broken.cpp:3:55: error: use of undeclared identifier" rather than
// the header line alone. The whole message is in --json's file.
std::string headline(const std::string& message) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at <= message.size();) {
    const std::size_t end = std::min(message.find('\n', at), message.size());
    if (end > at) lines.push_back(message.substr(at, end - at));
    at = end + 1;
  }
  if (lines.empty()) return "";
  std::string line = lines[0];
  if (line.ends_with(":") && lines.size() > 1) {
    const auto error =
        std::find_if(lines.begin() + 1, lines.end(), [](const std::string& l) { return l.find("error") != std::string::npos; });
    line += " " + (error != lines.end() ? *error : lines[1]);
  }
  return line.size() > 400 ? line.substr(0, 400) + "..." : line;
}

using Json = nlohmann::json;
namespace fs = std::filesystem;

// A target whose code must run here (bench, ceilings): the reason when it cannot.
void require_runs_here(const target::Target& t) {
  if (const std::string why = run::cannot_run_here(t); !why.empty()) throw LegoError(why);
}

std::string describe(const target::Target& t) {
  return fmt::format("target {} ({}, {}-byte vectors, {} vector registers{})", t.name, t.host ? t.cpu + ", " + t.level() : t.level(),
                     t.vector_bytes, t.vector_registers,
                     t.host ? "" : "; this machine: " + target::host().cpu + ", " + target::host().level());
}

// --seed: a whole number from 1 to 2^64 - 1, said as such when it is not
// (CLI11's own check printed a range of 300 digits, and clamped larger
// numbers to the largest).
std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0)
    throw LegoError("--seed " + text + ": give a whole number from 1 to 18446744073709551615 (leave --seed out to draw the inputs' seed)");
  return value;
}

int bench(const std::string& project_file, const std::string& kernel_name, std::size_t max_variants, std::uint64_t seed,
          const std::vector<std::string>& sets, const std::vector<std::string>& only_given, const std::string& json_out,
          run::SweepOptions sweep_options, const std::string& target_name, std::ostream& out, std::ostream& err) {
  const run::RunOptions& options = sweep_options.run;
  const auto started = std::chrono::steady_clock::now();
  const kernel::Project project = kernel::load_project(project_file, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, kernel_name);
  sweep_options.target = kernel::target_for(project, target_name);
  const target::Target& target = sweep_options.target;
  const Env overrides = parse_sets(sets);
  const std::vector<std::string> only = check_only(spec, only_given, overrides);
  check_fixed_extents(spec, overrides);
  // --only narrows the whole space first; a --max-variants sample is then drawn from what is left.
  const kernel::VariantSpace space = kernel::enumerate_variants(spec, {max_variants, seed, overrides, &target, only});
  if (space.variants.empty() && space.ruled_out > 0) {
    // Name the constraints too: with N = 1000 only BN = 8 divides N, and the target's rule alone misled.
    std::string constraints;
    for (const auto& c : spec.constraints) constraints += (constraints.empty() ? "" : ", ") + c.text;
    throw LegoError("target " + target.name + " rules out every variant of " + spec.name + " that is left (" +
                    std::to_string(space.ruled_out) + "), e.g. " + space.ruled_out_reason +
                    (space.rejected > 0 ? "; the other " + std::to_string(space.rejected) + " candidates fail the kernel's constraints (" +
                                              constraints + ")"
                                        : ""));
  }
  if (space.variants.empty() && space.left_out > 0) {
    const kernel::VariantSpace any = kernel::enumerate_variants(spec, {1, seed, overrides, &target});
    throw LegoError("--only leaves none of the " + std::to_string(space.left_out) + " variants" +
                    (!any.variants.empty() ? "; their ids look like " + any.variants.front().id
                     : any.ruled_out > 0   ? "; target " + target.name + " rules out every variant anyway, e.g. " + any.ruled_out_reason
                                           : std::string()));
  }
  if (space.variants.empty())
    throw LegoError("no variant of " + spec.name + " at these sizes: " + kernel::why_no_variant(spec, target, overrides));
  require_runs_here(target);
  err << describe(target) << "\n";
  const run::Roof roof = run::machine_roof(
      false, [&](const std::string& m) { err << m << "\n"; }, target.name);
  err << fmt::format("{}: {} variants ({} candidates, {} ruled out by constraints{}{}{}){}\n", spec.name, space.variants.size(),
                     space.candidates, space.rejected + space.left_out, only.empty() ? "" : " and --only",
                     space.ruled_out ? fmt::format(", {} by target {}", space.ruled_out, target.name) : "",
                     space.sampled ? fmt::format(", a random sample with seed {}", seed) : "",
                     spec.baselines.empty() ? "" : fmt::format(" and {} baseline(s)", spec.baselines.size()));
  if (space.ruled_out) err << "  e.g. " << space.ruled_out_reason << "\n";

  if (options.cache || options.store)
    if (const std::string problem = run::results_cache_problem(); !problem.empty())
      err << "(the results cache is not used: " << problem << "; every variant runs again)\n";
  std::vector<run::PreparedVariant> prepared;
  for (const auto& v : space.variants) prepared.push_back(run::prepare_variant(spec, v, target));
  std::vector<const run::PreparedVariant*> order;
  for (const auto& p : prepared) order.push_back(&p);
  run::WorkerClient worker(run::default_worker_path());
  double best_ms = -1;
  run::SweepEvents events;
  events.started = [&](std::size_t n, std::size_t total, const std::string& id) {
    err << fmt::format("[{}/{}] {} ", n, total, id) << std::flush;
  };
  bool dots_pending = false;  // ticks printed since the last line ended
  events.tick = [&] {
    err << "." << std::flush;
    dots_pending = true;
  };
  events.note = [&](const std::string& m) { err << m << "\n"; };
  events.finished = [&](const run::Outcome& o, std::size_t n, std::size_t total, double seconds) {
    dots_pending = false;
    if (o.status == run::Status::Duplicate) return;
    if (o.status == run::Status::RuledOut) return;  // summed up under the table
    if (o.status == run::Status::Invalid) {
      err << fmt::format("[{}/{}] {}: invalid: {}\n", n, total, o.id, o.message);
      return;
    }
    if (run::can_win(o) && (best_ms < 0 || o.ms < best_ms)) best_ms = o.ms;
    err << " " << run::status_text(o.status) << (o.ms > 0 ? fmt::format(" {:.4g} ms", o.ms) : "")
        << (o.cached ? " (cached)" : fmt::format(" ({:.1f} s)", seconds))
        << (best_ms > 0 && !o.baseline ? fmt::format("; best so far {:.4g} ms", best_ms) : "") << "\n";
  };
  const run::SweepResult swept = run::run_sweep(worker, spec, order, roof, sweep_options, events);
  const std::vector<run::Outcome>& rows = swept.outcomes;
  if (dots_pending) err << "\n";  // the side-by-side rounds' ticks

  const std::vector<const run::Outcome*> table = run::table_order(rows);
  // Speed-up over each timed baseline, side by side in this run (over a
  // copy baseline it is the fraction of the copy bandwidth).
  const std::vector<run::BaselineTime> bases = run::baseline_times(rows);
  // The id and verified columns as wide as their longest cell (matmul's ids
  // run to 90 characters, its verified cell names six sizes), counted in
  // characters: the check mark is three bytes.
  const auto width = [](const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  };
  const auto pad = [&](const std::string& s, std::size_t w) { return s + std::string(w > width(s) ? w - width(s) : 0, ' '); };
  const auto mark_of = [](const run::Outcome& r) { return run::verification_mark(r) + (r.verified_at.empty() ? "" : " " + r.verified_at); };
  std::size_t id_width = 7, mark_width = 8;
  for (const run::Outcome* row : table) {
    if (row->status == run::Status::Duplicate || row->status == run::Status::RuledOut) continue;
    id_width = std::max(id_width, width(row->id));
    if (row->ms > 0) mark_width = std::max(mark_width, width(mark_of(*row)));
  }
  std::string header = fmt::format("{:<4} {} {} {:>10} {:>9} {:>9} {:>7}", "#", pad("variant", id_width), pad("verified", mark_width), "ms",
                                   "GB/s", "GFLOP/s", "% roof");
  for (const auto& [name, ms] : bases) header += fmt::format(" {:>11}", "vs " + name.substr(0, 8));
  // The fastest library in this run running the target's ISA: the bar a
  // variant must clear (a library on another ISA is no fair bar).
  const std::string level = sweep_options.target.level();
  double best_library_ms = -1;
  bool libraries = false;
  for (const auto& r : rows) {
    libraries |= r.baseline && !r.library_kernel.empty();
    if (r.baseline && !r.library_kernel.empty() && r.library_level == level && r.ms > 0 && (best_library_ms < 0 || r.ms < best_library_ms))
      best_library_ms = r.ms;
  }
  // The column is there whenever a library ran, "-" when none ran the target's ISA.
  if (libraries) header += fmt::format(" {:>11}", "vs library");
  out << header << "\n";
  int rank = 0;
  for (const run::Outcome* row : table) {
    const run::Outcome& r = *row;
    if (r.status == run::Status::Duplicate || r.status == run::Status::RuledOut) continue;
    const std::string mark = mark_of(r);
    std::string ratios;
    for (const auto& [name, ms] : bases) ratios += r.ms > 0 ? fmt::format(" {:>10.2f}x", ms / r.ms) : "";
    if (libraries && r.ms > 0)
      ratios += best_library_ms > 0 ? fmt::format(" {:>10.2f}x", best_library_ms / r.ms) : fmt::format(" {:>11}", "-");
    if (r.ms > 0)
      out << fmt::format("{:<4} {} {} {:>10.4g} {:>9.2f} {:>9.2f} {:>6.1f}%{}\n", r.baseline ? "base" : std::to_string(++rank),
                         pad(r.id, id_width), pad(mark, mark_width), r.ms, r.gbs, r.gflops, r.percent_of_roof, ratios);
    else
      out << fmt::format("{:<4} {} {} {}\n", "-", pad(r.id, id_width), mark,
                         run::status_text(r.status) + (r.message.empty() ? "" : ": " + headline(r.message)));
  }
  for (const auto& r : rows) {
    if (!r.baseline || r.library_kernel.empty()) continue;
    const std::string name = r.key().name;
    std::string library;
    for (const auto& b : spec.baselines)
      if (b.name == name) library = b.library;
    const auto environment = run::library_environment(library, sweep_options.target);
    const bool chosen = std::any_of(environment.begin(), environment.end(), [](const auto& kv) { return !kv.second.empty(); });
    out << fmt::format("({} ran {}{}{})\n", name, r.library_kernel, chosen ? ", chosen to match target " + sweep_options.target.name : "",
                       r.library_level == level ? "" : "; not the target's " + level + ", so it is left out of \"vs library\"");
  }
  const auto duplicates = std::count_if(rows.begin(), rows.end(), [](const run::Outcome& r) { return r.status == run::Status::Duplicate; });
  if (duplicates) out << fmt::format("({} variants generate the same code as one above and were not run again)\n", duplicates);
  if (const auto ruled = std::find_if(rows.begin(), rows.end(), [](const run::Outcome& r) { return r.status == run::Status::RuledOut; });
      ruled != rows.end()) {
    const auto count = std::count_if(rows.begin(), rows.end(), [](const run::Outcome& r) { return r.status == run::Status::RuledOut; });
    out << fmt::format("({} variants ruled out by target {} and not compiled; the first, {}: {})\n", count, sweep_options.target.name,
                       ruled->id, ruled->message);
  }
  if (const auto& pairs = swept.side_by_side) out << side_by_side_text(*pairs, spec.name);
  print_input_seeds(rows, options.seed, false, err);
  // Said once: every process of a sweep raises the same walls.
  if (const auto partial = std::find_if(rows.begin(), rows.end(), [](const run::Outcome& r) { return !r.sandbox.empty(); });
      partial != rows.end())
    out << "(warning: " << partial->sandbox << "; the kernels ran with the walls that stood)\n";
  if (spec.tolerance > 0)
    out << fmt::format(
        "(outputs checked within a relative error of {:g}, the project's tolerance; the default is {:g} for float, {:g} for "
        "double, {:g} for half, exact for integers)\n",
        spec.tolerance, lego_check::default_tolerance<float>(), lego_check::default_tolerance<double>(), lego_check::kHalfTolerance);
  const auto cached = std::count_if(rows.begin(), rows.end(), [](const run::Outcome& r) { return r.cached; });
  if (cached) {
    // When they were timed: a reused timing sits beside fresh ones (the
    // baselines', a side-by-side round's), and the machine's pace drifts.
    std::int64_t first = 0, last = 0;
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    for (const auto& r : rows)
      if (r.cached && r.timed_unix > 0 && r.timed_unix <= now + 86400) {  // a clock set back by a day at most
        first = first == 0 ? r.timed_unix : std::min(first, r.timed_unix);
        last = std::max(last, r.timed_unix);
      }
    const auto when = [](std::int64_t t) { return fmt::format("{:%Y-%m-%d %H:%M} UTC", fmt::gmtime(static_cast<std::time_t>(t))); };
    const std::string timed = first == 0      ? std::string()
                              : first == last ? ", timed " + when(first)
                                              : ", timed " + when(first) + " to " + when(last);
    out << fmt::format("({} results reused from the cache of unchanged code{}; --no-cache runs them again)\n", cached, timed);
  }
  // Only rows whose check ran at other sizes say so (a --set at or below
  // verify_at's sizes is verified at full size).
  std::set<std::string> checked_at;
  for (const auto& r : rows)
    if (r.verified && !r.verified_at.empty()) checked_at.insert(r.verified_at);
  // Timed at full size only where something ran on the device or the CPU (a CUDA sweep without a GPU times nothing).
  const bool timed = std::any_of(rows.begin(), rows.end(), [](const run::Outcome& r) { return r.ms > 0; });
  for (const std::string& at : checked_at)
    out << "(✓ " << at << ": verified against the reference at " << at << ", the same template and layouts; "
        << (timed ? "timed at full size" : "not timed: nothing ran at full size") << ")\n";
  out << fmt::format("roof: copy {:.1f} GB/s, triad {:.1f} GB/s, peak {:.0f} / {:.0f} GFLOP/s (fp32 / fp64), {} threads{}\n", roof.copy_gbs,
                     roof.triad_gbs, roof.peak_gflops_f32, roof.peak_gflops_f64, roof.threads,
                     roof.measured_at.empty() ? "" : ", measured " + roof.measured_at);
  // A kernel whose bytes fit in the cache the ceiling's STREAM arrays do not
  // fit in may legitimately run above the memory roof (one that beats it
  // moving more made the sweep measure the ceilings again, events.note).
  if (std::any_of(rows.begin(), rows.end(), [&](const run::Outcome& r) { return run::above_roof_from_cache(r, roof); }))
    out << fmt::format(
        "(above 100%: this kernel's bytes fit in a cache the {:.0f} MiB STREAM arrays do not; a copy baseline in the same run is "
        "the roof at this size)\n",
        2 * run::stream_array_mib(roof));
  err << fmt::format("sweep took {:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (!json_out.empty()) {
    const Json results = run::bench_results_json({project_file, spec.name, roof, rows, table, bases, sweep_options.target.name,
                                                  swept.side_by_side ? &*swept.side_by_side : nullptr});
    run::write_atomically(json_out, results.dump(2) + "\n");
    err << "results written to " << json_out << "\n";
  }
  // The exit status tells a script how the sweep went (run::sweep_exit_status).
  const int status = run::sweep_exit_status(rows, options.verify);
  if (status == 1) err << "no variant verified (exit 1)\n";
  if (status == 3) err << run::failed_variants(rows) << " variant(s) failed (exit 3)\n";
  return status;
}

int list_targets(std::ostream& out) {
  const target::Target& here = target::host();
  out << fmt::format("{}, {} FMA pipes of {} bytes; L1d {} KiB, L2 {} KiB, L3 {} MiB\n\n", here.description, here.fma_pipes, here.fma_bytes,
                     here.l1d_bytes >> 10, here.l2_bytes >> 10, here.l3_bytes >> 20);
  out << fmt::format("{:<16} {:<12} {:>7} {:>9} {:>12}  {:<9} {}\n", "target", "level", "vector", "registers", "FMA pipes", "runs here",
                     "description");
  for (const auto& name : target::known_names()) {
    const target::Target t = *target::nominal(name);
    out << fmt::format("{:<16} {:<12} {:>6}B {:>9} {:>6} x {:>2}B  {:<9} {}\n", t.name, t.level(), t.vector_bytes, t.vector_registers,
                       t.fma_pipes, t.fma_bytes, run::cannot_run_here(t).empty() ? "yes" : "no", t.description);
  }
  return 0;
}

// The fastest verified variant of a results file (run::winner, as the app
// picks it), which must have been measured for the target being exported:
// another ISA's ranking is not this one's, and its winner may not even fit.
std::string best_variant(const std::string& results_file, const std::string& kernel_name, const std::string& target_name) {
  if (results_file.empty()) throw LegoError("--variant best needs --results FILE (the --json output of lego bench)");
  const run::ReadResults results = run::read_bench_results(read_regular_file(results_file, "results file", kMaxProjectBytes), results_file);
  if (results.kernel != kernel_name)
    throw LegoError(results_file + ": results are for kernel " + (results.kernel.empty() ? "?" : results.kernel) + ", not " + kernel_name);
  if (!results.target.empty() && results.target != target_name)
    throw LegoError(results_file + ": results are for target " + results.target + ", not " + target_name + "; export with --target " +
                    results.target + ", or name a variant (--variant ID) for " + target_name);
  const std::optional<std::size_t> best = run::winner(results.outcomes);
  if (!best) throw LegoError(results_file + ": no verified, timed variant");
  return results.outcomes[*best].id;
}

int export_kernel(const std::string& project_file, const std::string& kernel_name, std::string variant_id, const std::string& results,
                  const std::vector<std::string>& sets, const std::string& dir, bool force, const std::string& target_name,
                  std::ostream& out) {
  const kernel::Project project = kernel::load_project(project_file, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, kernel_name);
  const target::Target target = kernel::target_for(project, target_name);
  Env sizes = parse_sets(sets);
  const bool best = variant_id == "best";
  if (best) {
    variant_id = best_variant(results, spec.name, target.name);
    // The sweep may have run at sizes given with --set: the winner's id
    // names them, and without a --set here they are taken from it.
    if (sets.empty()) sizes = kernel::parameters_named_in(spec, variant_id).value_or(Env());
  }
  kernel::Variant v;
  try {
    v = kernel::find_variant(spec, variant_id, sizes);
  } catch (const LegoError& e) {
    if (!best || sets.empty()) throw;
    // The winner was measured at other sizes than the --set given here.
    throw LegoError(std::string(e.what()) + "\n(the best variant in " + results + " is " + variant_id +
                    "; drop --set to export it at the sizes it was measured at)");
  }
  if (best) out << "(the best variant in " << results << ": " << variant_id << ")\n";
  const kernel::Instance inst = kernel::instantiate(spec, v, sym::Lang::C, {.target = target});
  // The files first: a kernel that does not compile leaves no folder behind.
  const std::map<std::string, std::string> files = run::export_files(spec, inst);
  std::vector<std::string> replaced;
  for (const auto& path : run::write_folder(dir, files, force, &replaced)) out << path << "\n";
  for (const auto& path : replaced) out << "(replaced " << path << ")\n";
  return 0;
}

// The --set values for the parameters `spec` has (one --set over several kernels).
Env sets_for(const kernel::KernelSpec& spec, const std::vector<std::string>& sets) {
  Env overrides = parse_sets(sets);
  std::erase_if(overrides, [&](const auto& kv) {
    return std::none_of(spec.parameters.begin(), spec.parameters.end(), [&](const auto& p) { return p.name == kv.first; });
  });
  return overrides;
}

void print_analysis(const run::VariantAnalysis& r, const target::Target& target, std::ostream& out) {
  out << fmt::format("{}  {}", r.kernel, r.variant);
  if (r.backend == kernel::Backend::Cpu) out << fmt::format("  (made for target {}; its accesses traced on this machine)", target.name);
  if (r.accesses && r.backend == kernel::Backend::Cuda) {
    const auto& b = r.accesses->simulated_block;
    out << fmt::format("  (simulated block ({}, {}, {}))", b[0], b[1], b[2]);
  }
  out << "\n";
  for (const run::CudaResources& c : r.cuda)
    if (c.ok)
      out << fmt::format("  {}: {} registers, {} B shared, {} B spill stores, {} B spill loads\n", c.arch, c.registers, c.shared_bytes,
                         c.spill_stores, c.spill_loads);
  if (r.status != run::Status::Ok || !r.accesses) {
    out << "  " << run::status_text(r.status) << ": " << r.message << "\n";
    return;
  }
  out << fmt::format("  {:<5} {:<28} {:<7} {}\n", "line", "access", "kind", "result");
  const analysis::AccessReport& report = r.accesses->report;
  for (const auto& s : report.sites)
    out << fmt::format("  {:<5} {:<28} {:<7} {}\n", s.info.line, s.info.placeholder, analysis::to_string(s.info.kind),
                       analysis::verdict(s));
  if (r.backend == kernel::Backend::Cuda && report.worst_ways == 0)
    out << fmt::format("  total: no shared accesses; global efficiency {:.0f}%\n", 100 * report.global_efficiency);
  else if (r.backend == kernel::Backend::Cuda)
    out << fmt::format(
        "  total: worst bank conflict {}-way, {} excess wavefronts in the traced sample of one block (each access's first {} "
        "executions per thread); global efficiency {:.0f}%\n",
        report.worst_ways, report.excess_wavefronts, run::TraceOptions{}.per_site, 100 * report.global_efficiency);
  else
    out << fmt::format("  total: {:.3f} cache lines per iteration\n", report.lines_per_iteration);
}

int analyze(const std::string& project_file, const std::string& kernel_name, const std::string& variant_id,
            const std::vector<std::string>& sets, bool json, run::ReportDetail detail, const std::string& target_name, std::ostream& out,
            std::ostream& err) {
  const kernel::Project project = kernel::load_project(project_file, kernel::default_resource_dirs());
  std::vector<const kernel::KernelSpec*> kernels;
  if (kernel_name.empty() && variant_id.empty())
    for (const auto& k : project.kernels) kernels.push_back(&k);
  else
    kernels.push_back(&kernel::find_kernel(project, kernel_name));
  run::WorkerClient worker(run::default_worker_path());
  run::AnalyzeOptions options;
  options.heatmap = detail.heatmap;
  options.thread_map = detail.touches;
  options.target = kernel::target_for(project, target_name);
  Json all = Json::array();
  std::size_t analysed = 0, failed = 0;
  for (const kernel::KernelSpec* spec : kernels) {
    // Over a whole project, --set applies to the kernels that have the parameter.
    const Env overrides = kernels.size() > 1 ? sets_for(*spec, sets) : parse_sets(sets);
    std::vector<kernel::Variant> variants;
    if (!variant_id.empty())
      variants.push_back(kernel::find_variant(*spec, variant_id, overrides));
    else
      variants = kernel::enumerate_variants(*spec, {0, 1, overrides, &options.target}).variants;
    for (const auto& v : variants) {
      err << "analysing " << spec->name << " " << v.id << "\n";
      const run::VariantAnalysis r = run::analyze_variant(worker, *spec, v, options);
      ++analysed;
      if (r.status != run::Status::Ok) ++failed;
      if (!json) print_analysis(r, options.target, out);
      all.push_back(run::variant_analysis_json(r));
    }
  }
  if (json) out << Json{{"project", project_file}, {"variants", all}}.dump(2) << "\n";
  // A script must not take a report with holes for a whole one.
  if (failed > 0) err << fmt::format("{} of the {} variants could not be analysed (each says why above; exit 1)\n", failed, analysed);
  return failed > 0 ? 1 : 0;
}

// A Triton bundle: each variant at its sizes and at its verification sizes
// (run/triton_bundle.hpp).
int export_triton_bench(const kernel::Project& project, const std::string& project_file, const std::string& kernel_name,
                        const std::vector<std::string>& sets, std::size_t max_variants, std::uint64_t seed, const std::string& dir,
                        bool force, std::ostream& out, std::ostream& err) {
  std::vector<run::TritonBundleVariant> variants;
  std::set<std::string> seen;
  for (const auto& spec : project.kernels) {
    if ((!kernel_name.empty() && spec.name != kernel_name) || spec.backend != kernel::Backend::Triton) continue;
    for (const auto& v : kernel::enumerate_variants(spec, {max_variants, seed, sets_for(spec, sets)}).variants) {
      run::TritonBundleVariant bundled{&spec, kernel::instantiate(spec, v, sym::Lang::Triton), std::nullopt};
      if (!seen.insert(run::code_key(bundled.timed)).second) continue;
      bundled.verify = run::verification_instance(spec, v, false, target::host());
      variants.push_back(std::move(bundled));
    }
  }
  if (variants.empty()) throw LegoError("no Triton variant satisfies the kernel's constraints with these --set values");
  run::write_folder(dir, run::triton_bundle(variants), force);
  out << fmt::format("{} Triton variants written to {}\n", variants.size(), dir);
  err << fmt::format(
      "without a GPU: cd {0} && make check    (Triton's interpreter, the verification sizes)\n"
      "on a GPU machine: cd {0} && make run; then\n  lego import-results {1} {0}/results.json\n",
      dir, project_file);
  return 0;
}

int export_bench(const std::string& project_file, const std::string& kernel_name, const std::vector<std::string>& sets,
                 std::size_t max_variants, std::uint64_t seed, const std::string& dir, bool force, std::ostream& out, std::ostream& err) {
  const kernel::Project project = kernel::load_project(project_file, kernel::default_resource_dirs());
  bool cuda = false, triton = false;
  for (const auto& spec : project.kernels)
    if (kernel_name.empty() || spec.name == kernel_name) {
      cuda = cuda || spec.backend == kernel::Backend::Cuda;
      triton = triton || spec.backend == kernel::Backend::Triton;
    }
  // One bundle is one harness: nvcc's program or bench.py.
  if (cuda && triton) throw LegoError("the project has CUDA and Triton kernels, and a bundle holds one kind: pick a kernel with --kernel");
  if (triton) return export_triton_bench(project, project_file, kernel_name, sets, max_variants, seed, dir, force, out, err);
  std::vector<kernel::Instance> instances;
  std::set<std::string> seen;
  for (const auto& spec : project.kernels) {
    if ((!kernel_name.empty() && spec.name != kernel_name) || spec.backend != kernel::Backend::Cuda) continue;
    for (const auto& v : kernel::enumerate_variants(spec, {max_variants, seed, sets_for(spec, sets)}).variants) {
      kernel::Instance inst = kernel::instantiate(spec, v, sym::Lang::Cuda);
      if (seen.insert(run::code_key(inst)).second) instances.push_back(std::move(inst));
    }
  }
  if (instances.empty())
    throw LegoError(kernel_name.empty() ? "the project has no CUDA or Triton kernels"
                                        : "no CUDA or Triton kernel named \"" + kernel_name + "\" in the project");
  run::write_folder(dir, run::bench_bundle(instances), force);
  out << fmt::format("{} variants written to {}\n", instances.size(), dir);
  err << fmt::format(
      "on a GPU machine: cd {} && make -j ARCH=sm_90 run    (sm_80 for A100); then\n  lego import-results {} {}/results.json\n", dir,
      project_file, dir);
  return 0;
}

int import_results(const std::string& project_file, const std::string& results_file, bool allow_unknown, std::ostream& out) {
  const std::string results_text = kernel::read_text_file(results_file);
  // A results row for a variant the project cannot produce (a typo, a
  // bundle from another version of the project) would sit in the project
  // unseen; it is refused unless the user says otherwise.
  const project::UnknownVariant unknown = project::unknown_variant_of(kernel::load_project(project_file, kernel::default_resource_dirs()));
  project::MergeSummary summary;
  const std::string merged = project::merge_results(kernel::read_text_file(project_file), results_text, results_file,
                                                    allow_unknown ? project::UnknownVariant() : unknown, &summary);
  // The merged file must still load as a project before it replaces the old one.
  kernel::parse_project(merged, project_file, kernel::project_folder(project_file), kernel::default_resource_dirs());
  run::write_atomically(project_file, merged);
  out << fmt::format("{} results from {} merged into {}\n", summary.rows,
                     summary.device.empty() ? "an unnamed device" : printable(summary.device), project_file);
  out << "(each row's ✓ is the bundle's check on that machine, made in the kernel's own process)\n";
  return 0;
}

}  // namespace

bool is_kernel_command(const std::string& name) {
  return name == "bench" || name == "ceilings" || name == "export" || name == "analyze" || name == "export-bench" ||
         name == "import-results" || name == "suggest" || name == "targets";
}

int run_kernel_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"lego: kernel variants — run, measure, export (LEGO Studio)"};
  app.option_defaults()->always_capture_default();  // --help shows each default
  app.require_subcommand(1);
  std::string project, kernel_name, json_out, variant = "best", results, dir, target_name;
  std::vector<std::string> sets, only;
  std::size_t max_variants = 0;
  std::uint64_t seed = 1;
  double timeout_s = 120;
  bool no_verify = false, ceilings_json = false, refresh = false, allow_unknown = false, force = false;
  run::RunOptions options;

  auto* bench_cmd = app.add_subcommand("bench", "Compile, verify and time every variant of a kernel; table sorted by time");
  bench_cmd->add_option("project", project, "Project file (*.lego.json)")->required()->check(CLI::ExistingFile);
  bench_cmd->add_option("--kernel", kernel_name, "Kernel name (needed when the project has several)");
  bench_cmd->add_option("--max-variants", max_variants, "Run a random sample of at most N variants (0: all)");
  std::string seed_text;
  bench_cmd->add_option("--seed", seed_text,
                        "Seed of the sample, of a --strategy's draws and of the verification inputs, a whole number from 1 (without "
                        "it: 1 for the sample and the draws, and each run's worker draws the inputs' seed and prints it)");
  bench_cmd->add_option("--set", sets, "Fix a parameter, e.g. --set N=1024 (repeatable)");
  bench_cmd->add_option("--json", json_out, "Write results (Google Benchmark JSON with variant, verified, percent_of_roof) to this file");
  bench_cmd->add_option("--repetitions", options.repetitions, "Timed repetitions per variant (median reported)")
      ->check(CLI::Range(1, 1000));
  bench_cmd->add_option("--min-time", options.min_time_s, "Minimum seconds per repetition, above 0 (Google Benchmark aborts at 0)")
      ->check(CLI::Range(0.001, 60.0));
  bench_cmd->add_option("--timeout", timeout_s, "Seconds before a variant is killed as hung")->check(CLI::Range(1.0, 86400.0));
  const std::string target_help =
      "The CPU to build for: host (default, or the project's \"target\"), x86-64-v2/v3/v4, znver3, "
      "sapphirerapids, aarch64, ... (lego targets lists them)";
  bench_cmd->add_option("--target", target_name, target_help);
  bench_cmd->add_option("--only", only,
                        "Keep the variants with this layout choice or parameter value, e.g. --only B=row or --only T=32 (repeatable)");
  bench_cmd->add_flag("--no-verify", no_verify, "Skip the comparison with the reference");
  std::string strategy, budget;
  bool compare_strategies = false;
  bench_cmd->add_option("--strategy", strategy,
                        "Search instead of measuring every variant: exhaustive, random, model (the cost model's best predictions, "
                        "refitted each round) or evolve (the best variants' neighbours, ranked by the model)");
  bench_cmd->add_option(
      "--budget", budget,
      "What a --strategy may spend: N evaluations (e.g. 40) or a time (90s, 5m, 1.5h); default: no limit. Alone it "
      "implies --strategy model; with --compare-strategies, N evaluations cap each replay. After the search its best three are timed "
      "again and the best of them against the baselines (--rounds), unless a budget in seconds ran out");
  bench_cmd->add_flag("--compare-strategies", compare_strategies,
                      "Measure the whole space (the results cache makes reruns free), then replay random, model and evolve on it over "
                      "--seeds seeds: the evaluations each needs to come within 5% of the best, against random search's exact "
                      "expectation, and the model's rank correlation");
  std::size_t replay_seeds = 20;
  bench_cmd
      ->add_option("--seeds", replay_seeds, "With --compare-strategies: replays per strategy, seeds --seed, --seed + 1, ... (default 20)")
      ->check(CLI::Range(1, 1000));
  int retimings = -1;
  bench_cmd
      ->add_option("--retimings", retimings,
                   fmt::format("With --compare-strategies: how many times the codes are timed again, fresh, before the replays (each "
                               "keeps the median of its timings): a space of up to {} codes whole, a larger one its ten fastest "
                               "beside ten controls of the machine's pace; then the codes within {:.0f}% of the best (at least the {} "
                               "fastest) are timed side by side {} times; 0 trusts the first timings (default {} for a space timed "
                               "whole, {} for a larger one)",
                               kRetimedWhole, 100 * kContenderMargin, kFewestContenders, kContenderRounds, kWholeRetimings, kTopRetimings))
      ->default_str(fmt::format("{} or {}", kWholeRetimings, kTopRetimings))
      ->check(CLI::Range(0, 10));
  bool no_transfer = false;
  bench_cmd->add_flag("--no-transfer", no_transfer,
                      "With --strategy model or evolve and --compare-strategies: start from the static prior alone, not corrected by "
                      "the timings the results cache holds of the project's other kernels of the same template on this machine");
  bool verify_smaller = false;
  bench_cmd->add_flag("--verify-smaller", verify_smaller,
                      "Verify CUDA variants too large for the CPU emulator at smaller problem sizes (the kernel's verify_at, else "
                      "halved until the launch emulates quickly); the verified column names the sizes");
  bool no_cache = false;
  bench_cmd->add_flag("--no-cache", no_cache,
                      "Run every variant again instead of reusing results of unchanged code (the new results replace the cached ones)");
  int rounds = 3;
  bench_cmd
      ->add_option("--rounds", rounds,
                   "After the table, time the winner and each baseline again, one after the other, in N rounds, and print the "
                   "winner's speed-up over each baseline from the medians (\"vs copy\", as in the table, but from timings taken "
                   "side by side, which a shared machine's swings between the sweep's timings do not skew; also in --json as "
                   "lego_side_by_side). A --strategy search does the same with its best after timing its three best again. 0: skip")
      ->check(CLI::Range(0, 100));

  auto* ceilings_cmd = app.add_subcommand(
      "ceilings",
      "The machine's measured roofs: STREAM copy/triad bandwidth, peak FMA FP32/FP64, what the caches keep of a stream, and what "
      "lone lines, short streamed runs and lines written in pieces cost");
  ceilings_cmd->add_flag("--json", ceilings_json, "Print JSON");
  ceilings_cmd->add_flag("--refresh", refresh, "Measure again instead of reading the cache");
  ceilings_cmd->add_option("--target", target_name, "Measure with code built for this target (default: host)");
  auto* targets_cmd = app.add_subcommand("targets", "The CPU targets --target accepts: ISA level, vectors, registers, FMA pipes");

  auto* export_cmd = app.add_subcommand("export", "Write a variant as self-contained source: kernel, header, example caller, README");
  export_cmd->add_option("project", project, "Project file (*.lego.json)")->required()->check(CLI::ExistingFile);
  export_cmd->add_option("--kernel", kernel_name, "Kernel name");
  export_cmd->add_option("--variant", variant, "Variant id, or 'best' (with --results)");
  export_cmd->add_option("--results", results, "Results of lego bench --json, to pick the best verified variant");
  export_cmd->add_option("--set", sets, "Fix a parameter, e.g. --set N=1024 (repeatable)");
  export_cmd->add_option("--out", dir, "Output folder: new or empty (nothing is written through a link)")->required();
  export_cmd->add_flag("--force", force, "Write into a folder that is not empty, replacing the files of the same names");
  export_cmd->add_option("--target", target_name, target_help + "; another ISA (aarch64) is exported without the JIT's assembly");

  bool analyze_json = false, heatmap = false, thread_map = false;
  std::string analyze_variant_id;
  auto* analyze_cmd = app.add_subcommand(
      "analyze",
      "Static analysis per variant: bank conflicts of shared accesses, sectors per global request, cache lines per CPU access; "
      "NVRTC registers, shared memory and spills for CUDA (sm_80, sm_90)");
  analyze_cmd->add_option("project", project, "Project file (*.lego.json)")->required()->check(CLI::ExistingFile);
  analyze_cmd->add_option("--kernel", kernel_name, "Kernel name (default: every kernel)");
  analyze_cmd->add_option("--variant", analyze_variant_id, "Variant id (default: every variant)");
  analyze_cmd->add_option("--set", sets, "Fix a parameter, e.g. --set N=1024 (repeatable)");
  analyze_cmd->add_flag("--json", analyze_json, "Print JSON");
  analyze_cmd->add_option("--target", target_name, "Make CPU variants for this target (their accesses are traced here)");
  analyze_cmd->add_flag("--heatmap", heatmap, "With --json: the lanes x banks matrix of each shared access");
  analyze_cmd->add_flag("--thread-map", thread_map,
                        "With --json: per access, which thread touches which element at each step ([step, thread, offset])");

  auto* export_bench_cmd = app.add_subcommand("export-bench",
                                              "Write every CUDA variant as standalone .cu files with a harness and a Makefile (needs only "
                                              "nvcc), or every Triton variant with bench.py (PyTorch and Triton), for a remote GPU");
  export_bench_cmd->add_option("project", project, "Project file (*.lego.json)")->required()->check(CLI::ExistingFile);
  export_bench_cmd->add_option("--kernel", kernel_name, "Kernel name (default: every CUDA kernel, or every Triton kernel)");
  export_bench_cmd->add_option("--set", sets, "Fix a parameter, e.g. --set N=1024 (repeatable)");
  export_bench_cmd->add_option("--max-variants", max_variants, "At most N variants per kernel, a random sample (0: all)");
  export_bench_cmd->add_option("--seed", seed, "Seed of the sample");
  export_bench_cmd->add_option("--out", dir, "Output folder: new or empty (nothing is written through a link)")->required();
  export_bench_cmd->add_flag("--force", force, "Write into a folder that is not empty, replacing the files of the same names");

  std::string results_in;
  SuggestRequest suggest_request;
  auto* suggest_cmd = app.add_subcommand(
      "suggest",
      "Rank layouts for one buffer of a kernel: candidates from the algebra (row/col-major, padded rows, XOR swizzles, antidiag, "
      "skew, the project's own) scored on the kernel's traced accesses, with the reason for each");
  suggest_cmd->add_option("project", project, "Project file (*.lego.json)")->required()->check(CLI::ExistingFile);
  suggest_cmd->add_option("--kernel", kernel_name, "Kernel name (needed when the project has several)");
  suggest_cmd->add_option("--layout", suggest_request.buffer, "The buffer: a shared layout (e.g. S) or a tensor of the kernel")->required();
  suggest_cmd->add_option("--set", sets, "Fix a parameter, e.g. --set N=1024 (repeatable)");
  suggest_cmd->add_option("--top", suggest_request.top, "Show the best N (default 10)")->check(CLI::Range(1, 10000));
  suggest_cmd->add_option("--verify", suggest_request.verify,
                          "Run the kernel with each of the first N layouts against its reference (default 5; 0: none)");
  suggest_cmd->add_option("--apply", suggest_request.apply, "Add the layout of this rank to the project as a new alternative")
      ->check(CLI::PositiveNumber);
  suggest_cmd->add_option("--name", suggest_request.name, "With --apply: the new alternative's name (default suggested_<layout>)");
  suggest_cmd->add_flag("--json", suggest_request.json, "Print JSON");
  suggest_cmd->add_option("--target", suggest_request.target, "Verify the candidates with CPU variants made for this target");

  auto* import_cmd = app.add_subcommand("import-results", "Merge the results.json of a bench bundle into the project (under \"results\")");
  import_cmd->add_option("project", project, "Project file (*.lego.json), rewritten in place")->required()->check(CLI::ExistingFile);
  import_cmd->add_option("results", results_in, "results.json written by the bundle's harness")->required()->check(CLI::ExistingFile);
  import_cmd->add_flag("--allow-unknown", allow_unknown, "Merge rows whose variant the project cannot produce (refused by default)");

  if (const auto status = parse_command_line(app, args, out, err)) return *status;
  // --target takes a name: an empty one (an unset shell variable) is not "host".
  for (const CLI::App* sub : app.get_subcommands())
    if (const CLI::Option* o = sub->get_option_no_throw("--target"); o && o->count() > 0)
      for (const auto& value : o->results())
        if (value.empty()) {
          err << "lego: --target is empty; name a target (lego targets lists them)\n";
          return 2;
        }
  try {
    if (targets_cmd->parsed()) return list_targets(out);
    if (ceilings_cmd->parsed()) {
      const target::Target target = target::resolve(target_name.empty() ? "host" : target_name);
      require_runs_here(target);
      const run::Roof r = run::machine_roof(
          refresh, [&](const std::string& m) { err << m << "\n"; }, target.name);
      if (ceilings_json) {
        out << run::roof_json(r).dump(2) << "\n";
      } else {
        out << fmt::format(
            "copy bandwidth   {:8.1f} GB/s\ntriad bandwidth  {:8.1f} GB/s\npeak FP32 FMA    {:8.1f} GFLOP/s\npeak FP64 FMA    {:8.1f} "
            "GFLOP/s\n",
            r.copy_gbs, r.triad_gbs, r.peak_gflops_f32, r.peak_gflops_f64);
        if (r.resident_mib > 0)
          out << fmt::format("cache-resident   {:8d} MiB (the most a triad moves at 1.75x its bandwidth from memory)\n", r.resident_mib);
        if (r.lone_line_cost > 0)
          out << fmt::format("lone lines       {:8.2f}x (a 64-byte line streamed with no neighbour written near it, over one of a pair)\n",
                             r.lone_line_cost);
        if (r.pair_line_cost > 0)
          out << fmt::format("streamed runs    {:8.2f}x pairs, {:.2f}x runs of four lines (a line's time over one of a 4 KiB run)\n",
                             r.pair_line_cost, r.quad_line_cost);
        if (r.partial_line_cost > 0)
          out << fmt::format(
              "lines in parts   {:8.2f}x (a copy writing each 64-byte line in four 16-byte pieces at different times, over whole lines)\n",
              r.partial_line_cost);
        out << fmt::format("theoretical FP32 {:8.1f} GFLOP/s ({} {} pipes x {} lanes x {} x {:.2f} GHz measured x {} threads)\n",
                           r.theoretical_gflops_f32, target.fma_pipes, target.has_fma ? "FMA" : "mul/add",
                           std::min(target.fma_bytes, target.vector_bytes) / 4, target.has_fma ? 2 : 1, r.clock_ghz, r.threads);
        if (const std::string why = run::peak_disagreement(r.peak_gflops_f32, r.theoretical_gflops_f32); !why.empty())
          out << "note             " << why << "\n";
        if (r.cpu_share > 0 && r.cpu_share < run::kBusyShare)
          out << fmt::format(
              "note             measured on a busy machine: the kernels had the cores {:.0f}% of the time, so every figure "
              "above is low (the clock too, which hides it from the peak check); measure again when it is quiet\n",
              100 * r.cpu_share);
        out << fmt::format("target           {} ({}), FMA kernel with {} independent {}-byte chains per thread\n", target.name,
                           target.host ? target.cpu + ", " + target.level() : target.level(), r.fma_chains, target.vector_bytes);
        out << fmt::format("threads          {}\nmeasured         {}\ncached in        {}\n", r.threads,
                           r.measured_at.empty() ? "(unknown: measured before dates were kept)" : r.measured_at, r.cached_file);
      }
      return 0;
    }
    if (suggest_cmd->parsed()) {
      suggest_request.project = project;
      suggest_request.kernel = kernel_name;
      suggest_request.sets = parse_sets(sets);
      return suggest(suggest_request, out, err);
    }
    if (export_bench_cmd->parsed()) return export_bench(project, kernel_name, sets, max_variants, seed, dir, force, out, err);
    if (import_cmd->parsed()) return import_results(project, results_in, allow_unknown, out);
    if (analyze_cmd->parsed())
      return analyze(project, kernel_name, analyze_variant_id, sets, analyze_json, {.heatmap = heatmap, .touches = thread_map}, target_name,
                     out, err);
    if (bench_cmd->parsed()) {
      options.verify = !no_verify;
      options.cache = !no_cache;
      // Without --seed the worker draws the inputs' seed for this run.
      if (bench_cmd->count("--seed") > 0) {
        seed = parse_seed(seed_text);
        options.seed = seed;
      }
      run::SweepOptions sweep_options;
      sweep_options.run = options;
      sweep_options.timeout_s = timeout_s;
      sweep_options.verify_smaller = verify_smaller;
      sweep_options.side_by_side_rounds = rounds;
      if (bench_cmd->count("--seeds") > 0 && !compare_strategies) throw LegoError("--seeds is for --compare-strategies' replays");
      if (bench_cmd->count("--retimings") > 0 && !compare_strategies) throw LegoError("--retimings is for --compare-strategies' replays");
      if (no_transfer && !compare_strategies && (strategy == "random" || strategy == "exhaustive" || (strategy.empty() && budget.empty())))
        throw LegoError(
            "--no-transfer is for --strategy model or evolve (or --budget alone) and --compare-strategies: the others start from "
            "nothing the cost model knows");
      if (!strategy.empty() || !budget.empty() || compare_strategies) {
        if (max_variants) throw LegoError("--max-variants samples a plain sweep; a --strategy spends its --budget instead");
        if (!json_out.empty() && compare_strategies)
          throw LegoError("--json writes the results of a sweep or a --strategy search; --compare-strategies prints its replays");
        if (compare_strategies && !strategy.empty())
          throw LegoError("--compare-strategies replays random, model and evolve itself; drop --strategy");
        if (compare_strategies && !budget.empty() && search::parse_budget(budget).seconds > 0)
          throw LegoError("--budget " + budget + ": a replay counts evaluations, not seconds; give --budget N with --compare-strategies");
        if (bench_cmd->count("--rounds") > 0 && rounds > 0 && compare_strategies)
          err << "(--rounds is for a sweep's winner or a search's best; --compare-strategies times no baselines)\n";
        return bench_search({project, kernel_name, sets, only, strategy.empty() ? "model" : strategy, budget, seed, compare_strategies,
                             replay_seeds, retimings, target_name, sweep_options, !no_transfer, json_out},
                            out, err);
      }
      return bench(project, kernel_name, max_variants, seed, sets, only, json_out, sweep_options, target_name, out, err);
    }
    return export_kernel(project, kernel_name, variant, results, sets, dir, force, target_name, out);
  } catch (const LegoError& e) {
    err << "lego: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "lego: internal error: " << e.what() << "\n";
    return 70;
  }
}

}  // namespace lego::cli
