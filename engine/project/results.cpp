#include "project/results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "expr/diagnostic.hpp"
#include "kernel/bounded_json.hpp"
#include "kernel/variant.hpp"

namespace lego::project {

using run::Outcome;
using run::Status;

std::string merge_results(const std::string& project_text, const std::string& results_text, const std::string& results_label,
                          const UnknownVariant& unknown_variant, MergeSummary* summary) {
  using Ordered = nlohmann::ordered_json;
  Ordered project = kernel::parse_ordered_json_or_discarded(project_text);
  if (project.is_discarded() || !project.is_object()) throw LegoError("the project is not a JSON object");
  // Too deep or a number beyond a double is said as such, with its place,
  // rather than as "not a results file".
  if (const std::string problem = kernel::json_limit_problem(results_text); !problem.empty())
    throw LegoError(results_label + ": " + problem);
  Ordered results = kernel::parse_ordered_json_or_discarded(results_text);
  std::string rows_key = "variants";  // as the file names them, for the JSON paths of errors
  // The harnesses' results (bench_bundle.hpp, cpu_bundle.hpp): Google
  // Benchmark's JSON with our fields on each benchmark, and the device (a
  // GPU's name, or the host's with " (CPU)"), its arch and copy bandwidth in
  // the context. Older bundles wrote {"lego_bench_results", "device",
  // "variants"} directly; both are read.
  if (results.is_object() && results.contains("benchmarks") && results["benchmarks"].is_array() && results.contains("context") &&
      results["context"].is_object() && results["context"].contains("lego_bench_results")) {
    Ordered converted = {{"lego_bench_results", 1}, {"variants", results["benchmarks"]}};
    for (const char* key : {"device", "arch", "copy_gbs"})
      if (results["context"].contains(key)) converted[key] = results["context"][key];
    results = std::move(converted);
    rows_key = "benchmarks";
  }
  if (results.is_discarded() || !results.is_object() || !results.contains("lego_bench_results") || !results.contains("variants") ||
      !results["variants"].is_array())
    throw LegoError(results_label + ": $: not a results file written by a LEGO Studio bench bundle or cluster job");
  std::set<std::string> kernels;
  for (const auto& k : project.value("kernels", Ordered::array())) kernels.insert(k.value("name", ""));
  Ordered& merged = project["results"];
  if (!merged.is_object()) merged = Ordered::object();
  // Every field is checked for its type and range, with its JSON path: a
  // results file comes from another machine, and a wrong type used to end in
  // an internal error.
  auto text = [](const Ordered& o, const char* key, const std::string& where) -> std::string {
    if (!o.contains(key)) return "";
    if (!o[key].is_string()) throw LegoError(where + "." + key + ": expected a string");
    return o[key].get<std::string>();
  };
  auto number = [](const Ordered& o, const char* key, const std::string& where) -> double {
    if (!o.contains(key)) return 0.0;
    if (!o[key].is_number() || !std::isfinite(o[key].get<double>()) || o[key].get<double>() < 0)
      throw LegoError(where + "." + key + ": expected a number >= 0");
    return o[key].get<double>();
  };
  const std::string top = results_label + ": $";
  const std::string device = text(results, "device", top), arch = text(results, "arch", top);
  const double copy_gbs = number(results, "copy_gbs", top);
  for (std::size_t k = 0; k < results["variants"].size(); ++k) {
    const Ordered& v = results["variants"][k];
    const std::string path = results_label + ": $." + rows_key + "[" + std::to_string(k) + "]";
    if (!v.is_object() || !v.contains("kernel") || !v["kernel"].is_string() || !v.contains("variant") || !v["variant"].is_string() ||
        !v.contains("median_ms") || !v["median_ms"].is_number())
      throw LegoError(path + ": expected kernel, variant (strings) and median_ms (a number)");
    const std::string kernel = v["kernel"].get<std::string>(), variant = v["variant"].get<std::string>();
    if (!kernels.count(kernel)) throw LegoError(path + ".kernel: the project has no kernel \"" + kernel + "\"");
    if (variant.empty()) throw LegoError(path + ".variant: empty");
    if (unknown_variant)
      if (const std::string why = unknown_variant(kernel, variant); !why.empty())
        throw LegoError(path + ".variant: " + why + " (--allow-unknown merges it anyway)");
    const double median_ms = number(v, "median_ms", path);
    if (median_ms <= 0) throw LegoError(path + ".median_ms: expected a time > 0");
    if (v.contains("verified") && !v["verified"].is_boolean()) throw LegoError(path + ".verified: expected true or false");
    Ordered entry = {{"device", device},
                     {"arch", arch},
                     {"copy_gbs", copy_gbs},
                     {"verified", v.value("verified", false)},
                     {"median_ms", median_ms},
                     {"gbs", number(v, "gbs", path)},
                     {"gflops", number(v, "gflops", path)},
                     {"percent_of_copy", number(v, "percent_of_copy", path)}};
    // A Triton bundle times each variant beside a library (PyTorch) in the same process.
    if (v.contains("baseline")) {
      entry["baseline"] = text(v, "baseline", path);
      entry["baseline_ms"] = number(v, "baseline_ms", path);
      entry["percent_of_baseline"] = number(v, "percent_of_baseline", path);
    }
    if (v.contains("verified_at")) entry["verified_at"] = text(v, "verified_at", path);
    merged[kernel][variant] = entry;
  }
  if (summary) *summary = {results["variants"].size(), device};
  return project.dump(2) + "\n";
}

UnknownVariant unknown_variant_of(kernel::Project project) {
  auto shared = std::make_shared<const kernel::Project>(std::move(project));
  return [shared](const std::string& kernel_name, const std::string& variant) -> std::string {
    const kernel::KernelSpec& spec = kernel::find_kernel(*shared, kernel_name);
    return kernel::names_a_variant(spec, variant) ? "" : "kernel " + kernel_name + " has no variant \"" + variant + "\"";
  };
}

// A project file is edited by hand too: a field of another type reads as
// absent, never as an exception.
std::vector<Outcome> imported_outcomes(const nlohmann::json& project) {
  std::vector<Outcome> found;
  if (!project.is_object() || !project.contains("results") || !project["results"].is_object()) return found;
  const auto word = [](const nlohmann::json& r, const char* key, const char* fallback) {
    return r.contains(key) && r[key].is_string() ? r[key].get<std::string>() : std::string(fallback);
  };
  const auto number = [](const nlohmann::json& r, const char* key, double fallback) {
    return r.contains(key) && r[key].is_number() ? r[key].get<double>() : fallback;
  };
  for (const auto& [kernel, variants] : project["results"].items()) {
    if (!variants.is_object()) continue;
    for (const auto& [id, r] : variants.items()) {
      if (!r.is_object() || !r.contains("median_ms") || !r["median_ms"].is_number()) continue;
      Outcome o;
      o.kernel = kernel;
      o.id = id;
      o.status = Status::Imported;
      o.verified = r.contains("verified") && r["verified"].is_boolean() && r["verified"].get<bool>();
      o.message = "measured on " + word(r, "device", "another machine") + " (" + word(r, "arch", "?") + "), copy bandwidth " +
                  std::to_string(static_cast<long long>(std::clamp(number(r, "copy_gbs", 0), 0.0, 1e12))) + " GB/s; lego import-results" +
                  (o.verified ? "; checked there by the bundle, in the kernel's own process, not by this tool's sandboxed worker" : "") +
                  (r.contains("verified_at") && r["verified_at"].is_string() ? " (at " + r["verified_at"].get<std::string>() + ")" : "");
      if (r.contains("baseline") && r["baseline"].is_string() && number(r, "percent_of_baseline", 0) > 0)
        o.message += fmt::format("; {:.1f} % of {}'s speed ({:.4f} ms), timed in the same process", number(r, "percent_of_baseline", 0),
                                 r["baseline"].get<std::string>(), number(r, "baseline_ms", 0));
      o.ms = number(r, "median_ms", -1);
      o.gbs = number(r, "gbs", 0);
      o.gflops = number(r, "gflops", 0);
      o.percent_of_roof = number(r, "percent_of_copy", 0);
      found.push_back(std::move(o));
    }
  }
  return found;
}

std::vector<Outcome> imported_outcomes(const std::string& project_text) {
  return imported_outcomes(kernel::parse_json_or_discarded(project_text));
}

}  // namespace lego::project
