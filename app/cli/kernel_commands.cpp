#include "kernel_commands.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "layout/derive.hpp"
#include "layout/parse.hpp"
#include "run/executor.hpp"
#include "run/jit.hpp"
#include "run/worker_client.hpp"

namespace lego::cli {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

Env parse_sets(const std::vector<std::string>& sets) {
  Env env;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw LegoError("--set expects NAME=VALUE, got \"" + s + "\"");
    try {
      std::size_t used = 0;
      env[s.substr(0, eq)] = std::stoll(s.substr(eq + 1), &used);
      if (used != s.size() - eq - 1) throw std::invalid_argument(s);
    } catch (const std::exception&) {
      throw LegoError("--set " + s + ": the value must be an integer");
    }
  }
  return env;
}

// A reader never sees half a file: write beside it, then rename over it.
void write_atomically(const fs::path& file, const std::string& text) {
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out.flush()) throw LegoError("cannot write " + tmp.string());
  }
  fs::rename(tmp, file);
}

fs::path cache_file() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const fs::path base = xdg && *xdg ? fs::path(xdg) : home ? fs::path(home) / ".cache" : fs::temp_directory_path();
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  return base / "lego-studio" / (std::string("ceilings-") + host + ".json");
}

// Measured once per machine (and thread count) and cached.
Json ceilings(bool refresh, std::ostream& err) {
  const fs::path file = cache_file();
  const long threads = sysconf(_SC_NPROCESSORS_ONLN);
  if (!refresh) {
    std::ifstream in(file);
    Json cached = Json::parse(in, nullptr, false);
    if (!cached.is_discarded() && cached.is_object() && cached.value("threads", 0L) == threads && cached.contains("copy_gbs")) {
      cached["cached"] = file.string();
      return cached;
    }
  }
  err << "measuring the machine's ceilings (STREAM copy/triad, peak FMA; once per machine)...\n";
  run::WorkerClient worker(run::default_worker_path());
  Json r = worker.call({{"id", 1}, {"kind", "ceilings"}}, 300);
  if (r.value("status", "") != "ok") throw LegoError("measuring ceilings failed: " + r.value("message", r.dump()));
  r.erase("id");
  r.erase("status");
  fs::create_directories(file.parent_path());
  write_atomically(file, r.dump(2) + "\n");
  r["cached"] = file.string();
  return r;
}

double median_ms(const Json& result) {
  for (const auto& b : result["benchmark"]["benchmarks"])
    if (b.value("aggregate_name", "") == "median") return b["real_time"].get<double>();  // Unit is ms
  return -1;
}

// Percent of the roof that bounds this kernel: copy bandwidth for a
// kernel without FLOPs, else min(peak, intensity x triad bandwidth).
double percent_of_roof(const kernel::Instance& inst, double ms, const Json& roof) {
  if (ms <= 0) return 0;
  const double s = ms / 1e3;
  if (inst.flops == 0) return 100.0 * (static_cast<double>(inst.bytes) / s / 1e9) / roof["copy_gbs"].get<double>();
  const bool f64 = !inst.tensors.empty() && inst.tensors[0].type == kernel::ElementType::F64;
  const double peak = roof[f64 ? "peak_gflops_f64" : "peak_gflops_f32"].get<double>();
  const double intensity = inst.bytes > 0 ? static_cast<double>(inst.flops) / static_cast<double>(inst.bytes) : 1e30;
  return 100.0 * (static_cast<double>(inst.flops) / s / 1e9) / std::min(peak, intensity * roof["triad_gbs"].get<double>());
}

// The code that differs between variants: the source past its header, and the layouts.
std::string code_key(const kernel::Instance& inst) {
  std::string key = inst.source.substr(inst.source.find('\n') + 1);
  for (const auto& t : inst.tensors) key += "\n" + t.view_text;
  return key;
}

struct Row {
  std::string id, status, message, duplicate_of;
  double ms = -1, gbs = 0, gflops = 0, roof = 0;
  bool verified = false;
};

int bench(const std::string& project_file, const std::string& kernel_name, std::size_t max_variants, std::uint64_t seed,
          const std::vector<std::string>& sets, const std::string& json_out, const run::RunOptions& options, double timeout_s,
          std::ostream& out, std::ostream& err) {
  const kernel::Project project = kernel::load_project(project_file, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, kernel_name);
  const kernel::VariantSpace space = kernel::enumerate_variants(spec, {max_variants, seed, parse_sets(sets)});
  if (space.variants.empty())
    throw LegoError("no variant of " + spec.name + " satisfies the constraints (" + std::to_string(space.rejected) + " rejected)");
  if (spec.backend != "cpu") throw LegoError("kernel " + spec.name + " is a " + spec.backend + " kernel; lego bench runs CPU kernels");
  const Json roof = ceilings(false, err);
  err << fmt::format("{}: {} variants ({} candidates, {} ruled out by constraints{})\n", spec.name, space.variants.size(), space.candidates,
                     space.rejected, space.sampled ? fmt::format(", a random sample with seed {}", seed) : "");

  run::WorkerClient worker(run::default_worker_path());
  std::vector<Row> rows;
  Json benchmarks = Json::array(), context;
  std::map<std::string, std::string> seen;  // code -> first variant id
  std::size_t n = 0;
  for (const auto& v : space.variants) {
    ++n;
    Row row{v.id, "", "", "", -1, 0, 0, 0, false};
    kernel::Instance inst;
    try {
      inst = kernel::instantiate(spec, v, sym::Lang::C);
    } catch (const LegoError& e) {
      row.status = "invalid";
      row.message = e.what();
      rows.push_back(row);
      err << fmt::format("[{}/{}] {}: invalid: {}\n", n, space.variants.size(), v.id, e.what());
      continue;
    }
    if (auto [it, fresh] = seen.emplace(code_key(inst), v.id); !fresh) {
      row.status = "duplicate";
      row.duplicate_of = it->second;
      rows.push_back(row);
      continue;
    }
    err << fmt::format("[{}/{}] {} ", n, space.variants.size(), v.id) << std::flush;
    const Json r = worker.call(run::make_request(inst, options, static_cast<std::int64_t>(n)), timeout_s,
                               [&](const Json&) { err << "." << std::flush; });
    row.status = r.value("status", "error");
    row.message = r.value("message", "");
    row.verified = r.value("verified", false);
    if (row.status == "ok" && r.contains("benchmark")) {
      row.ms = median_ms(r);
      row.gbs = static_cast<double>(inst.bytes) / (row.ms / 1e3) / 1e9;
      row.gflops = static_cast<double>(inst.flops) / (row.ms / 1e3) / 1e9;
      row.roof = percent_of_roof(inst, row.ms, roof);
      if (context.is_null()) context = r["benchmark"]["context"];
      for (Json b : r["benchmark"]["benchmarks"]) {
        b["variant"] = v.id;
        b["kernel"] = spec.name;
        b["verified"] = row.verified;
        b["percent_of_roof"] = row.roof;
        benchmarks.push_back(b);
      }
    } else {
      benchmarks.push_back({{"name", v.id},
                            {"variant", v.id},
                            {"kernel", spec.name},
                            {"run_type", "iteration"},
                            {"error_occurred", true},
                            {"error_message", row.status + ": " + row.message},
                            {"status", row.status},
                            {"verified", row.verified}});
    }
    err << " " << row.status << (row.ms > 0 ? fmt::format(" {:.4g} ms", row.ms) : "") << "\n";
    rows.push_back(row);
  }

  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    const bool ta = a.ms > 0, tb = b.ms > 0;
    return ta != tb ? ta : (ta && a.ms < b.ms);
  });
  out << fmt::format("{:<4} {:<50} {:<9} {:>10} {:>9} {:>9} {:>7}\n", "#", "variant", "verified", "ms", "GB/s", "GFLOP/s", "% roof");
  int rank = 0;
  for (const auto& r : rows) {
    if (r.status == "duplicate") continue;
    if (r.ms > 0)
      out << fmt::format("{:<4} {:<50} {:<9} {:>10.4g} {:>9.2f} {:>9.2f} {:>6.1f}%\n", ++rank, r.id, r.verified ? "✓" : "✗", r.ms, r.gbs,
                         r.gflops, r.roof);
    else
      out << fmt::format("{:<4} {:<50} {:<9} {}\n", "-", r.id, "✗",
                         r.status + (r.message.empty() ? "" : ": " + r.message.substr(0, r.message.find('\n'))));
  }
  const auto duplicates = std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.status == "duplicate"; });
  if (duplicates) out << fmt::format("({} variants generate the same code as one above and were not run again)\n", duplicates);
  out << fmt::format("roof: copy {:.1f} GB/s, triad {:.1f} GB/s, peak {:.0f} / {:.0f} GFLOP/s (fp32 / fp64), {} threads\n",
                     roof["copy_gbs"].get<double>(), roof["triad_gbs"].get<double>(), roof["peak_gflops_f32"].get<double>(),
                     roof["peak_gflops_f64"].get<double>(), roof["threads"].get<int>());
  if (!json_out.empty()) {
    if (context.is_null()) context = Json::object();
    context["lego_project"] = project_file;
    context["lego_kernel"] = spec.name;
    context["lego_ceilings"] = roof;
    Json variants = Json::array();
    for (const auto& r : rows)
      variants.push_back({{"variant", r.id},
                          {"status", r.status},
                          {"message", r.message},
                          {"verified", r.verified},
                          {"median_ms", r.ms},
                          {"gbs", r.gbs},
                          {"gflops", r.gflops},
                          {"percent_of_roof", r.roof},
                          {"duplicate_of", r.duplicate_of}});
    context["lego_variants"] = variants;
    write_atomically(json_out, Json{{"context", context}, {"benchmarks", benchmarks}}.dump(2) + "\n");
    err << "results written to " << json_out << "\n";
  }
  return 0;
}

std::string best_variant(const std::string& results_file, const std::string& kernel_name) {
  if (results_file.empty()) throw LegoError("--variant best needs --results FILE (the --json output of lego bench)");
  std::ifstream in(results_file);
  const Json j = Json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("context") || !j["context"].contains("lego_variants"))
    throw LegoError(results_file + ": not a results file written by lego bench --json");
  if (j["context"].value("lego_kernel", "") != kernel_name)
    throw LegoError(results_file + ": results are for kernel " + j["context"].value("lego_kernel", "?") + ", not " + kernel_name);
  std::string best;
  double best_ms = 1e300;
  for (const auto& v : j["context"]["lego_variants"])
    if (v.value("verified", false) && v.value("median_ms", -1.0) > 0 && v["median_ms"].get<double>() < best_ms) {
      best_ms = v["median_ms"].get<double>();
      best = v["variant"].get<std::string>();
    }
  if (best.empty()) throw LegoError(results_file + ": no verified, timed variant");
  return best;
}

int export_kernel(const std::string& project_file, const std::string& kernel_name, std::string variant_id, const std::string& results,
                  const std::vector<std::string>& sets, const std::string& dir, std::ostream& out) {
  const kernel::Project project = kernel::load_project(project_file, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, kernel_name);
  if (variant_id == "best") variant_id = best_variant(results, spec.name);
  const kernel::Variant v = kernel::find_variant(spec, variant_id, parse_sets(sets));
  const kernel::Instance inst = kernel::instantiate(spec, v, sym::Lang::C);
  fs::create_directories(dir);
  const std::string base = spec.name;

  std::string header = "// " + spec.name + ", variant " + v.id + " (exported by LEGO Studio)\n#pragma once\n#include <cstdint>\n\n";
  std::string params, args;
  for (const auto& t : inst.tensors) {
    // Where element (i, j, ..) of each tensor lives in its buffer, derived from its layout.
    std::vector<std::string> idx;
    for (std::size_t k = 0; k < t.extents.size(); ++k) idx.push_back("i" + std::to_string(k));
    DeriveRequest request;
    request.indices = idx;
    const DeriveResult d = derive(parse_layout(t.view_text), inst.parameters, request);
    std::string sig, temps;
    for (const auto& i : idx) sig += (sig.empty() ? "" : ", ") + std::string("int64_t ") + i;
    for (const auto& [name, e] : d.temporaries) temps += "  const " + d.index_type + " " + name + " = " + e + ";\n";
    std::string extents;
    for (auto e : t.extents) extents += (extents.empty() ? "" : " x ") + std::to_string(e);
    header += fmt::format("// {} ({}, {}): {} {}, layout \"{}\":\n//   {}\ninline int64_t {}_offset({}) {{\n{}  return {};\n}}\n\n", t.name,
                          kernel::to_string(t.role), kernel::c_type(t.type), extents, kernel::c_type(t.type), t.layout_name, t.view_text,
                          t.name, sig, temps, d.exprs.at(0));
    params +=
        (params.empty() ? "" : ", ") + std::string(t.role == kernel::Role::In ? "const " : "") + kernel::c_type(t.type) + "* " + t.name;
    args += (args.empty() ? "" : ", ") + t.name + ".data()";
  }
  const std::string prelude = sym::c_prelude(sym::Lang::C);
  header = prelude + header;
  header += "extern \"C\" void lego_kernel(" + params + ");\n";

  std::string example =
      "// Calls the exported kernel once on filled buffers and prints a checksum.\n// Build: c++ -O3 -march=native -fopenmp example.cpp " +
      base + ".cpp -o example\n#include <chrono>\n#include <cstdio>\n#include <vector>\n\n#include \"" + base + ".hpp\"\n\nint main() {\n";
  std::string sums;
  for (const auto& t : inst.tensors) {
    example += fmt::format("  std::vector<{}> {}({});\n  for (size_t k = 0; k < {}.size(); ++k) {}[k] = {}(k % 97) * {}(0.5);\n",
                           kernel::c_type(t.type), t.name, t.elements, t.name, t.name, kernel::c_type(t.type), kernel::c_type(t.type));
    if (t.role != kernel::Role::In)
      sums += fmt::format(
          "  double sum_{0} = 0;\n  for (auto v : {0}) sum_{0} += v;\n  std::printf(\"checksum {0} = %.17g\\n\", sum_{0});\n", t.name);
  }
  example += "  const auto t0 = std::chrono::steady_clock::now();\n  lego_kernel(" + args +
             ");\n  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();\n" + sums +
             "  std::printf(\"time %.3f ms\\n\", ms);\n  return 0;\n}\n";

  std::string source = inst.source;
  if (auto at = source.find("#line 1 "); at != std::string::npos) source.erase(at, source.find('\n', at) - at + 1);
  if (auto at = source.find(prelude); !prelude.empty() && at != std::string::npos) source.erase(at, prelude.size());  // the header has it
  source = "#include \"" + base + ".hpp\"\n" + source;

  std::map<std::string, std::string> files = {
      {base + ".cpp", source},
      {base + ".hpp", header},
      {"example.cpp", example},
      {"README.md",
       "# " + spec.name + " — variant " + v.id + "\n\n" + spec.description +
           "\n\nExported by LEGO Studio. Self-contained C++17 with OpenMP; no LEGO Studio needed.\n\n"
           "    c++ -O3 -march=native -fopenmp example.cpp " +
           base + ".cpp -o example && ./example\n\n`" + base +
           ".hpp` documents each tensor's layout and gives `<tensor>_offset(i, ..)`, the position of an element in its buffer. `" + base +
           ".s` is the assembly LEGO Studio's JIT produced for this machine (-O3 -march=native).\n"}};
  // What the compiler made of it (compiled here, never run here).
  run::CompileResult compiled = run::compile_cpp(inst.source);
  files[base + ".s"] = compiled.module ? compiled.module->assembly() : "; the kernel does not compile:\n" + compiled.diagnostics;
  for (const auto& [name, text] : files) {
    write_atomically(fs::path(dir) / name, text);
    out << (fs::path(dir) / name).string() << "\n";
  }
  return 0;
}

}  // namespace

bool is_kernel_command(const std::string& name) { return name == "bench" || name == "ceilings" || name == "export"; }

int run_kernel_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"lego: kernel variants — run, measure, export (LEGO Studio)"};
  app.require_subcommand(1);
  std::string project, kernel_name, json_out, variant = "best", results, dir;
  std::vector<std::string> sets;
  std::size_t max_variants = 0;
  std::uint64_t seed = 1;
  double timeout_s = 120;
  bool no_verify = false, ceilings_json = false, refresh = false;
  run::RunOptions options;

  auto* bench_cmd = app.add_subcommand("bench", "Compile, verify and time every variant of a kernel; table sorted by time");
  bench_cmd->add_option("project", project, "Project file (*.lego.json)")->required()->check(CLI::ExistingFile);
  bench_cmd->add_option("--kernel", kernel_name, "Kernel name (needed when the project has several)");
  bench_cmd->add_option("--max-variants", max_variants, "Run a random sample of at most N variants (0: all)");
  bench_cmd->add_option("--seed", seed, "Seed of the sample and of the random inputs");
  bench_cmd->add_option("--set", sets, "Fix a parameter, e.g. --set N=1024 (repeatable)");
  bench_cmd->add_option("--json", json_out, "Write results (Google Benchmark JSON with variant, verified, percent_of_roof) to this file");
  bench_cmd->add_option("--repetitions", options.repetitions, "Timed repetitions per variant (median reported)")
      ->check(CLI::Range(1, 1000));
  bench_cmd->add_option("--min-time", options.min_time_s, "Minimum seconds per repetition")->check(CLI::Range(0.0, 60.0));
  bench_cmd->add_option("--timeout", timeout_s, "Seconds before a variant is killed as hung")->check(CLI::Range(1.0, 86400.0));
  bench_cmd->add_flag("--no-verify", no_verify, "Skip the comparison with the reference");

  auto* ceilings_cmd = app.add_subcommand("ceilings", "The machine's measured roofs: STREAM copy/triad bandwidth, peak FMA FP32/FP64");
  ceilings_cmd->add_flag("--json", ceilings_json, "Print JSON");
  ceilings_cmd->add_flag("--refresh", refresh, "Measure again instead of reading the cache");

  auto* export_cmd = app.add_subcommand("export", "Write a variant as self-contained source: kernel, header, example caller, README");
  export_cmd->add_option("project", project, "Project file (*.lego.json)")->required()->check(CLI::ExistingFile);
  export_cmd->add_option("--kernel", kernel_name, "Kernel name");
  export_cmd->add_option("--variant", variant, "Variant id, or 'best' (with --results)");
  export_cmd->add_option("--results", results, "Results of lego bench --json, to pick the best verified variant");
  export_cmd->add_option("--set", sets, "Fix a parameter, e.g. --set N=1024 (repeatable)");
  export_cmd->add_option("--out", dir, "Output folder")->required();

  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      out << app.help();
      return 0;
    }
    err << "lego: " << e.what() << "\nRun 'lego " << (args.size() > 1 ? args[1] : "") << " --help' for usage.\n";
    return 2;
  }
  try {
    if (ceilings_cmd->parsed()) {
      const Json r = ceilings(refresh, err);
      if (ceilings_json) {
        out << r.dump(2) << "\n";
      } else {
        out << fmt::format(
            "copy bandwidth   {:8.1f} GB/s\ntriad bandwidth  {:8.1f} GB/s\npeak FP32 FMA    {:8.1f} GFLOP/s\npeak FP64 FMA    {:8.1f} "
            "GFLOP/s\n",
            r["copy_gbs"].get<double>(), r["triad_gbs"].get<double>(), r["peak_gflops_f32"].get<double>(),
            r["peak_gflops_f64"].get<double>());
        out << fmt::format("threads          {}\ncached in        {}\n", r["threads"].get<int>(), r.value("cached", ""));
      }
      return 0;
    }
    if (bench_cmd->parsed()) {
      options.verify = !no_verify;
      return bench(project, kernel_name, max_variants, seed, sets, json_out, options, timeout_s, out, err);
    }
    return export_kernel(project, kernel_name, variant, results, sets, dir, out);
  } catch (const LegoError& e) {
    err << "lego: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "lego: internal error: " << e.what() << "\n";
    return 70;
  }
}

}  // namespace lego::cli
