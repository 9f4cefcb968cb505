// The static report of one variant, shared by `lego analyze` and the app:
// for CUDA kernels NVRTC's resources per target (registers, shared memory,
// spills), and for every kernel the access analysis of a trace that a
// lego-worker records (bank conflicts, sectors per request, cache lines).
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "run/outcome.hpp"
#include "run/trace.hpp"
#include "run/worker_client.hpp"

namespace lego::run {

struct AnalyzeOptions {
  std::vector<std::string> archs{"sm_80", "sm_90"};
  bool heatmap = false;     // lanes x banks per shared access
  bool thread_map = false;  // which thread touches which element, per step
  double timeout_s = 120;
  TraceOptions trace;
  // The CPU a CPU variant is made for (its code, what it rules out); the
  // trace itself runs here, since it records addresses, not instructions.
  target::Target target = target::host();
};

// NVRTC for each target; a target that fails carries its log.
std::vector<CudaResources> cuda_resources(const std::string& source, const std::vector<std::string>& archs);
// The same, compiled by a worker (NVRTC reads the #includes a project names:
// a FIFO there hangs, and only a worker's time limit ends it); with `ptx`,
// also the PTX for sm_80. A worker that runs out of time gives every arch
// the log "timed out after N s".
struct CudaCompiled {
  std::vector<CudaResources> resources;
  std::string ptx;
};
CudaCompiled cuda_resources_in_worker(WorkerClient& worker, const std::string& source, const std::vector<std::string>& archs, bool ptx,
                                      const std::atomic<bool>* cancel = nullptr);
// How long a compile in a worker (export, analyze) may take:
// LEGO_COMPILE_SECONDS, default 60; a real kernel compiles in seconds.
double compile_time_limit();

// One variant's static report. `status` is Ok, Invalid (not instantiable
// here), CompileError (NVRTC refused a target), or what the worker's trace
// came to; `message` says why when it is not Ok.
struct VariantAnalysis {
  std::string kernel, variant;
  kernel::Backend backend = kernel::Backend::Cpu;
  Status status = Status::Error;
  std::string message;
  std::vector<CudaResources> cuda;  // CUDA kernels: one per target asked for
  std::optional<AccessAnalysis> accesses;
};

// Never throws for a bad variant.
VariantAnalysis analyze_variant(WorkerClient& worker, const kernel::KernelSpec& spec, const kernel::Variant& variant,
                                const AnalyzeOptions& options, const std::atomic<bool>* cancel = nullptr);

}  // namespace lego::run
