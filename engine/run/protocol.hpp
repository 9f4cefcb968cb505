// Where the engine's typed results meet JSON, in one place: the worker's
// replies (a variant's run, an access analysis, a machine's ceilings), the
// ceilings cache, `lego analyze --json` and the results file of `lego bench
// --json` (Google Benchmark's format with our fields), which `lego export
// --variant best` reads back. Readers name the JSON path of a field that is
// missing or of the wrong type.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/analyze.hpp"
#include "run/outcome.hpp"
#include "run/side_by_side.hpp"
#include "run/sweep.hpp"

namespace lego::run {

// Ceilings: {"copy_gbs", "triad_gbs", "peak_gflops_f32", "peak_gflops_f64",
// "threads", "cpu", "array_mib", "measured_unix", "measured_at", "cached"}
// for a machine, {"device", ...} for a GPU. Missing figures read as 0.
Roof roof_from_json(const nlohmann::json& roof);
nlohmann::json roof_json(const Roof& roof);

// The run messages (run/messages.hpp). A request is written by the client
// and read by the worker after run::request_error has checked it field by
// field, so `run_request_from_json` does not check again: an absent field
// takes the default. A reply is read by the client and from the results
// cache, which do not trust it: a field of the wrong type throws LegoError
// naming its path under `at` ("reply.benchmark.benchmarks[0].real_time").
nlohmann::json to_json(const RunRequest& request);
RunRequest run_request_from_json(const nlohmann::json& checked);
nlohmann::json to_json(const RunReply& reply);
RunReply run_reply_from_json(const nlohmann::json& reply, const std::string& at = "reply");
nlohmann::json to_json(const CompileRequest& request);
CompileRequest compile_request_from_json(const nlohmann::json& checked);
nlohmann::json to_json(const CompileReply& reply);
CompileReply compile_reply_from_json(const nlohmann::json& reply, const std::string& at = "reply");

// Google Benchmark's report as a kernel's process sends it: only the fields
// BenchmarkEntry keeps, each of its type (LegoError naming the path
// otherwise), at least one run and at most 10000.
BenchmarkReport benchmark_report_from_json(const nlohmann::json& report, const std::string& at = "benchmark");
nlohmann::json benchmark_report_json(const BenchmarkReport& report);
nlohmann::json benchmark_entry_json(const BenchmarkEntry& entry);
nlohmann::json benchmark_context_json(const BenchmarkReport& report);

// A worker's reply to a run request (run::run_variant's result), read into
// `out`: status, verification, timings, NVRTC resources, the benchmark
// report passed through.
void read_variant_result(const VariantResult& result, Outcome& out);

CudaResources cuda_resources_from_json(const nlohmann::json& cuda);
nlohmann::json cuda_resources_json(const CudaResources& cuda);

// The access analysis as the worker sends it and `lego analyze --json`
// prints it: {"sites": [...], "totals", "simulated_block", "records",
// "trace_compile_ms", "trace_run_ms"}; lanes x banks per shared site with
// a heatmap, a "thread_map" per site when it has one.
nlohmann::json access_analysis_json(const AccessAnalysis& analysis);
AccessAnalysis access_analysis_from_json(const nlohmann::json& accesses);

// One variant of `lego analyze --json`: {"kernel", "variant", "backend",
// "status", "message", "cuda": [...], "accesses"}.
nlohmann::json variant_analysis_json(const VariantAnalysis& analysis);

// The --json file of lego bench: Google Benchmark's {"context",
// "benchmarks"} with each entry's variant, kernel, verified, baseline and
// percent_of_roof, and in the context the project, the kernel, the roof and
// "lego_variants" (every outcome in `table_order`, with its speed-ups over
// `baselines`). `run_order` gives the benchmarks' order.
struct BenchResults {
  std::string project_file, kernel;
  Roof roof;
  const std::vector<Outcome>& run_order;
  std::vector<const Outcome*> table_order;
  std::vector<BaselineTime> baselines;
  std::string target = "host";               // the CPU target the variants were made for
  const SideBySide* side_by_side = nullptr;  // the winner against the baselines in alternating rounds, when timed
};
nlohmann::json bench_results_json(const BenchResults& results);
// The outcomes a results file lists, typed (status, verification, timing,
// baseline), and its kernel. `where` names the file in errors.
struct ReadResults {
  std::string kernel;
  std::string target;  // "" in files written before targets
  std::vector<Outcome> outcomes;
};
ReadResults read_bench_results(const std::string& text, const std::string& where);

}  // namespace lego::run
