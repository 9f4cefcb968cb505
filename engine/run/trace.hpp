// Access traces for static analysis. The instance is instantiated with its
// accesses marked (LEGO_ACCESS) and compiled as plain C++ by the JIT with a
// tracing runtime in front: CUDA kernels get a shim (threadIdx, blockIdx,
// __shared__ as static, __syncthreads as a phase counter) and one block is
// simulated thread by thread; CPU kernels run on one thread. Each thread
// stops once every access site has been recorded `per_site` times or after
// `budget` accesses, so the trace is bounded whatever the problem size.
// This runs generated code: it belongs in lego-worker, never in the GUI.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/accesses.hpp"
#include "kernel/instantiate.hpp"

namespace lego::run {

struct TraceOptions {
  std::int64_t per_site = 64;     // records per site and thread (CUDA) or per site (CPU: x 64)
  std::int64_t budget = 1 << 22;  // accesses executed per thread before it is stopped
};

struct Trace {
  std::vector<analysis::TraceRecord> records;
  std::vector<analysis::SiteInfo> sites;
  std::array<std::int64_t, 3> block_index{};  // the simulated block (CUDA)
  double compile_ms = 0, run_ms = 0;
};

// What an analysis adds to the verdicts: lanes x banks per shared access,
// and per access which thread touches which element at each step.
struct ReportDetail {
  bool heatmap = false, touches = false;
};

// The trace analysed (analysis::analyze_trace), with the detail asked for
// and the trace's own figures. run/protocol writes it for the worker's reply.
using AccessAnalysis = analysis::AccessAnalysis;
AccessAnalysis access_analysis(const Trace& trace, ReportDetail detail);

}  // namespace lego::run
