// Static metrics of a kernel's memory accesses, from a trace of the index
// each access computes (run/trace records one simulated block of a CUDA
// kernel, or the first iterations of a CPU kernel). A warp request is one
// access site executed by the lanes of a warp in the same barrier phase for
// the same time: shared requests get bank conflicts (banks.hpp), global
// requests 32-byte sectors, CPU accesses cache lines and strides.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/banks.hpp"

namespace lego::analysis {

// One executed access. Layout-compatible with the tracing runtime's record.
struct TraceRecord {
  std::int32_t site, phase, occurrence, thread;
  std::int64_t block, offset;  // offset: the element index into the array
  // bytes: the element's size. access_bytes: how many bytes the lane moves
  // from there when an instruction moves more than one element (an
  // ldmatrix row, a cp.async: 4, 8 or 16), 0 for one element, -1 for a
  // lane whose address the instruction ignores (ldmatrix.x1's lanes 8-31).
  std::int32_t bytes, access_bytes;
};

// Where an access goes: shared memory (banks), global memory (sectors) or
// host memory (cache lines).
enum class MemoryKind { Shared, Global, Host };
const char* to_string(MemoryKind kind);  // "shared", "global", "host"
// Unknown words are nullopt.
std::optional<MemoryKind> memory_kind_from_text(const std::string& text);

struct SiteInfo {
  int site = 0;
  std::string name;
  MemoryKind kind = MemoryKind::Host;
  std::string placeholder;
  int line = 0;
};

struct SiteReport {
  SiteInfo info;
  int bytes = 0;                // element size
  int access_bytes = 0;         // bytes per lane's access: the element, or what one instruction moves (ldmatrix 16)
  std::int64_t executions = 0;  // warp requests (CUDA) or accesses (CPU) analysed
  // shared
  int max_ways = 0;
  double mean_ways = 0;
  std::int64_t wavefronts = 0, excess_wavefronts = 0;
  LaneBankCounts lane_bank{};        // summed over the requests
  LaneBankCounts worst_lane_bank{};  // the first request with max_ways
  // global
  double sectors_per_request = 0, ideal_sectors_per_request = 0;
  double efficiency = 0;  // useful bytes / transferred bytes
  // host
  double lines_per_access = 0;  // 64-byte lines newly touched per access
  std::int64_t common_stride = 0;
  bool unit_stride = false;
};

struct AccessReport {
  std::vector<SiteReport> sites;
  // totals: shared wavefronts over the ideal; global useful / transferred; CPU lines per iteration
  int worst_ways = 0;
  std::int64_t excess_wavefronts = 0;
  double global_efficiency = 0;
  double lines_per_iteration = 0;
};

// Threads are numbered x-fastest within a block; lanes are thread % 32.
AccessReport analyze_trace(const std::vector<SiteInfo>& sites, const std::vector<TraceRecord>& records);

// Which thread touches which element of one access site, step by step: a
// thread's step s is its s-th execution of the site in the trace. The thread
// map of the app draws these; steps past `max_steps` and touches past
// `max_touches` are left out (`truncated`).
struct Touch {
  std::int32_t step, thread;
  std::int64_t offset;
  // The warp request it belongs to (with the warp): what re-scoring the
  // same accesses under another layout needs (run/suggest).
  std::int32_t phase = 0, occurrence = 0;
};
struct SiteTouches {
  std::vector<Touch> touches;
  int steps = 0, threads = 0;  // steps kept; threads seen (max thread + 1)
  bool truncated = false;
};
SiteTouches site_touches(const std::vector<TraceRecord>& records, int site, int max_steps, std::size_t max_touches);

// A kernel's access analysis as the tools pass it around: the report, each
// site's thread map when one was asked for, and whether shared sites carry
// lanes x banks. (run/trace reads it from the worker's JSON.)
struct AccessAnalysis {
  AccessReport report;
  std::vector<std::optional<SiteTouches>> touches;  // per site, in report.sites' order
  bool heatmap = false;                             // shared sites carry lanes x banks
  // The trace it came from: the simulated block (CUDA), the records read,
  // and what compiling and running the traced code took.
  std::array<std::int64_t, 3> simulated_block{};
  std::int64_t records = 0;
  double trace_compile_ms = 0, trace_run_ms = 0;
};

// One access's verdict in words ("32-way (mean 32.00), 992 excess
// wavefronts", ...): lego analyze and the app.
std::string verdict(const SiteReport& site);

}  // namespace lego::analysis
