// What running one variant (or a baseline) of a kernel came to, typed: the
// sweep driver returns these to `lego bench` and to the app alike, and the
// winner is chosen here once. Worker JSON is read into an Outcome in
// run/sweep_driver.cpp and nowhere else.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "run/trace.hpp"

namespace lego::run {

enum class Status {
  NotRun,        // in the project, not run in this sweep
  Ok,            // ran (and verified, unless verification was off)
  Wrong,         // ran, and its output differs from the reference
  CompileError,  // the JIT or NVRTC refused it
  OutOfBounds,   // wrote outside a tensor (the guard zones around each buffer)
  Crashed,       // the worker died running it (a signal)
  Timeout,       // killed after the sweep's timeout
  Cancelled,     // the user cancelled while it ran
  NoGpu,         // CUDA code compiled and emulated; no device to time it on
  Error,         // the worker could not run the request
  Invalid,       // could not be instantiated at these sizes
  Duplicate,     // the same code as an earlier variant: not run again
  Imported,      // measured elsewhere (lego import-results)
};

// The words the CLI and the app show ("ok", "wrong", "compile-error",
// "no GPU", ...), which are also the worker protocol's.
const char* status_text(Status status);
// Unknown words read as Error.
Status status_from_text(const std::string& text);
// Whether a sweep counts it as failed (the exit status of lego bench):
// invalid, duplicate, no GPU and imported are not failures.
bool is_failure(Status status);

struct Outcome {
  std::string kernel, id;
  Status status = Status::NotRun;
  std::string message;
  bool baseline = false;  // "baseline:NAME": a library or copy, timed beside the variants, never the winner
  bool verified = false;
  std::string verified_at;   // "N=64" when the check ran at the kernel's smaller verify_at sizes
  bool cached = false;       // reused from the results cache of unchanged code
  std::string duplicate_of;  // Duplicate: the variant whose code it shares
  // Timing: the median of the repetitions; -1 when not timed.
  double ms = -1, gbs = 0, gflops = 0;
  double percent_of_roof = 0;  // against the machine's (or the GPU's) roof
  double intensity = 0;        // FLOPs per byte: where the roofline places it
  std::string assembly;        // when the sweep asked for it
  std::string source;          // a baseline's code as timed (a variant's is its instance's)
  int registers = -1;          // CUDA: NVRTC's registers per thread
  // The static access report (run/analyze.hpp) when the sweep asked for it,
  // and its headline figures; -1 where they do not apply.
  std::optional<AccessAnalysis> accesses;
  int bank_ways = -1;
  double coalesced_percent = -1, lines_per_iteration = -1;
  // The worker's Google Benchmark entries, kept for the --json file.
  nlohmann::json benchmarks = nlohmann::json::array(), benchmark_context;
};

// The roofs a run is placed against: the machine's (run::machine_ceilings)
// or a GPU's (copy bandwidth measured on the device, peak FP32).
struct Roof {
  double copy_gbs = 0, triad_gbs = 0, peak_gflops_f32 = 0;
};
// Missing figures read as 0 (a roof that bounds nothing).
Roof roof_from_json(const nlohmann::json& roof);

// ✓ verified; – not compared (no GPU to run on, or a baseline that is a
// roof); ✗ failed. UTF-8, shown by the CLI and the app.
const char* verification_mark(const Outcome& outcome);

// Whether it may be the winner: a verified, timed variant, never a baseline.
bool can_win(const Outcome& outcome);
// The fastest outcome that can_win, or nullopt.
std::optional<std::size_t> winner(const std::vector<const Outcome*>& outcomes);
std::optional<std::size_t> winner(const std::vector<Outcome>& outcomes);

}  // namespace lego::run
