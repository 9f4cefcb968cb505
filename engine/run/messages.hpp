// The worker protocol's run messages, typed: what `lego` and the app ask the
// worker to do with one variant (or a baseline), with the one set of
// defaults for it, and what the worker answers. JSON meets them in
// run/protocol only: the client writes a request and reads a reply there,
// the worker reads a request (after run/worker_request has checked it
// field by field) and writes a reply there, and the results cache keeps
// replies in the same form.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "run/outcome.hpp"

namespace lego::run {

// How a variant is run: checked against the reference, timed, its
// assembly returned. The defaults are the run presets' (run/sweep.hpp).
struct RunOptions {
  bool verify = true;
  bool time = true;
  bool want_assembly = false;
  int repetitions = 5;
  double min_time_s = 0.05;  // per repetition
  // The verification inputs' seed; 0: the worker draws one for its run
  // (once per worker, from the system's random source, after its kernels'
  // zygotes were forked), so that no kernel can know its inputs before it
  // reads them. The reply says which (RunReply::input_seed).
  std::uint64_t seed = 0;
  bool cache = false;  // reuse results of unchanged code (run/sweep.hpp); not sent to the worker
  // Store the result for later runs (also without `cache`: a refresh). Off
  // for a second look that must not replace the first (a search's re-timing).
  bool store = true;
};

// One tensor as the worker allocates it: logical extents and the layout
// (the layout language, over the tensor's own coordinates) it is packed in.
struct TensorArgument {
  std::string name;
  kernel::ElementType type = kernel::ElementType::F32;
  kernel::Role role = kernel::Role::In;
  std::vector<std::int64_t> extents;
  std::string layout;
  std::int64_t elements() const;  // the product of the extents
};

struct RunRequest {
  std::int64_t id = 0;
  std::string kernel, variant;
  std::string source, reference;  // the kernel's translation unit; the reference's
  std::string library;            // a baseline's library ("openblas"), loaded in its process
  kernel::Backend backend = kernel::Backend::Cpu;
  std::string target = "host";  // the CPU the code is built for
  std::vector<TensorArgument> tensors;
  std::map<std::string, std::int64_t> parameters;
  double flops = 0, bytes = 0;
  double tolerance = 0;  // 0: the element type's default
  RunOptions options;
  std::array<std::int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};  // CUDA launch shape
};

// A self-contained request: the worker needs no project file.
RunRequest make_request(const kernel::Instance& instance, const RunOptions& options, std::int64_t id);

// One output compared with the reference's.
struct OutputCheck {
  struct Mismatch {
    std::int64_t position = 0;  // row-major over the logical extents
    std::string got, want;      // as printed ("nan", "1.5")
  };
  std::string tensor;
  std::int64_t mismatches = 0;
  double max_error = 0, tolerance = 0;
  std::optional<Mismatch> first_mismatch;
};

// A run on a GPU: the times of its launches and the device's roofs.
struct GpuTiming {
  std::string device;
  std::vector<double> times_ms;
  int rotation = 1;  // the buffer sets launches rotate through (cold caches)
  double copy_gbs = 0, triad_gbs = 0, peak_bandwidth_gbs = 0, peak_gflops_f32 = 0, peak_gflops_f64 = 0;
};

struct RunReply {
  std::int64_t id = 0;
  std::string kernel, variant;
  Status status = Status::Error;
  std::string message;
  bool verified = false;
  std::vector<OutputCheck> checks;  // one per output, when it was compared
  std::string verified_by;          // "CPU emulation" for a CUDA kernel without a GPU
  // Set by the sweep (run/sweep.hpp): the smaller sizes it was verified at,
  // and whether it came from the results cache.
  std::map<std::string, std::int64_t> verified_at;
  bool cached = false;
  // When this machine's sweep ran it (Unix seconds; 0: unknown), kept by
  // the results cache, so a reused result says how old its timing is.
  std::int64_t timed_unix = 0;
  double kernel_ms = -1;                      // compile time; -1 when it was not compiled
  std::string assembly;                       // when asked for
  std::string sandbox;                        // what of the kernel's sandbox could not be raised
  std::uint64_t input_seed = 0;               // the seed the inputs were drawn from (0: none were)
  std::string library_kernel, library_level;  // a library baseline's kernels, as its process reported them
  std::optional<CudaResources> cuda;
  std::optional<GpuTiming> gpu;
  std::optional<BenchmarkReport> benchmark;  // when timed
};

// The median of a timed reply's repetitions in ms: Google Benchmark's
// median aggregate, or its first iteration when it ran one repetition
// (it adds aggregates only for more); -1 when it was not timed.
double median_ms(const RunReply& reply);
// Its repetitions' times in ms: a GPU run's launches, a CPU run's
// iteration entries.
std::vector<double> repetition_times_ms(const RunReply& reply);

// A worker's "compile" request: the source compiled for `target` in a
// kernel's process, never linked or run (an export's assembly, a cached
// result's missing assembly), and its reply: Ok with the assembly, or
// CompileError with the compiler's message (Timeout, Crashed ... when the
// client ended it).
struct CompileRequest {
  std::int64_t id = 0;
  std::string source, target = "host";
};
struct CompileReply {
  Status status = Status::Error;
  std::string message, assembly;
};

}  // namespace lego::run
