// What running one variant (or a baseline) of a kernel came to, typed: the
// sweep driver returns these to `lego bench` and to the app alike, and the
// winner is chosen here once. Worker JSON is read into an Outcome in
// run/protocol.cpp and nowhere else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "analysis/accesses.hpp"
#include "kernel/variant_key.hpp"

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
  RuledOut,      // the target cannot run it (a feature it lacks, a register tile too large): never compiled
};

// The words the CLI and the app show ("ok", "wrong", "compile-error",
// "no GPU", ...), which are also the worker protocol's.
const char* status_text(Status status);
// Unknown words read as Error.
Status status_from_text(const std::string& text);
// Whether a sweep counts it as failed (the exit status of lego bench):
// invalid, ruled out, duplicate, no GPU and imported are not failures.
bool is_failure(Status status);

// The roofs a run is placed against: the machine's (run::machine_roof) or a
// GPU's (copy bandwidth measured on the device, peak FP32). Missing figures
// are 0: a roof that bounds nothing.
struct Roof {
  double copy_gbs = 0, triad_gbs = 0, peak_gflops_f32 = 0, peak_gflops_f64 = 0;
  int threads = 0, array_mib = 0;  // the machine's: threads measured with, STREAM array size
  std::string cpu, device;         // the host CPU, or the GPU's name
  std::string measured_at;         // "2026-11-24 02:55 UTC"; empty when unknown
  std::int64_t measured_unix = 0;
  std::string cached_file;  // where machine_roof keeps it, or "(not cached: why)"
  // CPU ceilings are measured per target (run/ceilings.hpp): its name and
  // ISA level, the FMA kernel's chains, the clock the cores ran at, and the
  // theoretical peak at that clock; empty or 0 where unknown.
  std::string target, level;
  int fma_chains = 0;
  double clock_ghz = 0, theoretical_gflops_f32 = 0;
  double cpu_share = 0;  // of the cores during the FMA runs (run/ceilings.hpp); 0: not known
  // The most bytes (MiB) a triad moves at 1.75x its bandwidth from memory
  // or faster, i.e. from the caches (run/ceilings.hpp); 0: none, or not
  // known (measured on a busy machine).
  int resident_mib = 0;
  // A line streamed alone (64 bytes, no neighbour written near it in time)
  // in lines of 128-byte pairs (run/ceilings.hpp); 0 where not known
  // (measured on a busy machine, or not a CPU's).
  double lone_line_cost = 0;
  // A streamed line in a 128-byte pair and in a 256-byte run, in lines of a
  // 4 KiB run (run/ceilings.hpp); 0 where not known.
  double pair_line_cost = 0, quad_line_cost = 0;
  // A copy whose destination lines are each written in four pieces at
  // different times, over one writing whole lines, both with plain stores
  // (run/ceilings.hpp); 0 where not known.
  double partial_line_cost = 0;
};

// What NVRTC (ptxas) reports for one target.
struct CudaResources {
  std::string arch;
  bool ok = false;
  double ms = -1;  // compile time; -1: not compiled (no NVRTC) or not reported
  int registers = -1, shared_bytes = -1, spill_stores = -1, spill_loads = -1;
  std::int64_t ptx_bytes = -1, cubin_bytes = -1;  // -1: not reported
  std::string log;                                // why it failed
};

// Google Benchmark's report of a timed run ({"context", "benchmarks"}), the
// fields the worker keeps of it: names and units as text, counts as
// integers, times and rates as numbers; an absent field stays absent.
struct BenchmarkEntry {
  std::string name, run_name, run_type, aggregate_name, aggregate_unit, time_unit;
  std::optional<double> real_time, cpu_time, bytes_per_second, flops;
  std::optional<std::int64_t> iterations, repetitions, repetition_index, family_index, per_family_instance_index, threads;
};
struct BenchmarkReport {
  using Value = std::variant<std::string, std::int64_t, double, bool>;
  std::vector<std::pair<std::string, Value>> context;  // the machine and library as Google Benchmark saw them
  std::vector<BenchmarkEntry> entries;
};

struct Outcome {
  std::string kernel, id;
  Status status = Status::NotRun;
  std::string message;
  bool baseline = false;  // a library or copy, timed beside the variants, never the winner (its id is "baseline:NAME")
  bool verified = false;
  std::string verified_at;      // "N=64" when the check ran at the kernel's smaller verify_at sizes
  bool cached = false;          // reused from the results cache of unchanged code
  std::int64_t timed_unix = 0;  // when it was timed (Unix seconds; 0: unknown or not timed)
  std::string duplicate_of;     // Duplicate: the variant whose code it shares
  // Timing: the median of the repetitions; -1 when not timed.
  double ms = -1, gbs = 0, gflops = 0;
  // The spread of the timed repetitions (a busy machine varies by 4x): the
  // fastest and slowest, and how many there were; -1 and 0 when not timed.
  double ms_min = -1, ms_max = -1;
  int repetitions = 0;
  double percent_of_roof = 0;         // against `roof`
  Roof roof;                          // the machine's, or the GPU's it ran on
  double intensity = 0;               // FLOPs per byte: where the roofline places it
  std::string assembly;               // when the sweep asked for it
  std::string source;                 // a baseline's code as timed (a variant's is its instance's)
  std::string sandbox;                // what of the kernel's sandbox could not be raised ("" when all of it stood)
  std::uint64_t input_seed = 0;       // the seed its verification inputs were drawn from (0: not verified here)
  std::string library_kernel;         // a library baseline: the kernels it ran ("OpenBLAS core Haswell (...)")
  std::string library_level;          // their ISA level ("x86-64-v3"); "" when unknown
  std::optional<CudaResources> cuda;  // CUDA: the target the run compiled for
  // The static access report (run/analyze.hpp) when the sweep asked for it,
  // and its headline figures; -1 where they do not apply.
  std::optional<analysis::AccessAnalysis> accesses;
  int bank_ways = -1;
  double coalesced_percent = -1, lines_per_iteration = -1;
  // The worker's Google Benchmark report, passed through to lego bench's
  // --json file (run/protocol).
  std::optional<BenchmarkReport> benchmark;

  kernel::VariantKey key() const { return kernel::key_of_row(kernel, id, baseline); }
};

// Speed-up of a variant over a baseline timed in the same sweep.
struct BaselineTime {
  std::string name;  // the baseline's name
  double ms = 0;
};
// The timed baselines among `outcomes`, in the order they ran.
std::vector<BaselineTime> baseline_times(const std::vector<Outcome>& outcomes);

// ✓ verified; – not compared (no GPU to run on, ruled out by the target,
// or a baseline that is a roof); ✗ failed. UTF-8, shown by the CLI and the app.
const char* verification_mark(const Outcome& outcome);

// Whether it may be the winner: a verified, timed variant, never a baseline.
bool can_win(const Outcome& outcome);
// The fastest outcome that can_win, or nullopt.
std::optional<std::size_t> winner(const std::vector<const Outcome*>& outcomes);
std::optional<std::size_t> winner(const std::vector<Outcome>& outcomes);
// The order lego bench's table and --json list outcomes in: timed rows
// first, fastest first; the rest in run order.
std::vector<const Outcome*> table_order(const std::vector<Outcome>& outcomes);
// Without timings (a CUDA sweep on a machine with no GPU): the verified
// variant the static analysis ranks first: fewest bank-conflict ways, then
// the most coalesced global accesses, then the fewest cache lines per
// iteration, then the first. nullopt when no verified variant was analysed.
std::optional<std::size_t> static_winner(const std::vector<const Outcome*>& outcomes);

}  // namespace lego::run
