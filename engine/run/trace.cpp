#include "run/trace.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "expr/diagnostic.hpp"
#include "run/cuda_emulator.hpp"
#include "run/executor.hpp"
#include "run/jit.hpp"
#include "run/tensors.hpp"
#include "run/worker_handlers.hpp"

namespace lego::run {

using Json = nlohmann::json;

namespace {

// In front of the instance: the recorder, and for CUDA the shim that lets
// the kernel compile as C++ (one simulated thread at a time).
std::string runtime_source(std::size_t sites, bool cuda) {
  std::string s = R"(#include <csetjmp>
#include <cstdint>
#include <vector>
struct LegoTraceRecord { int32_t site, phase, occurrence, thread; int64_t block, offset; int32_t bytes, access_bytes; };
static std::vector<LegoTraceRecord> lego_trace_records;
static int32_t lego_trace_phase = 0, lego_trace_thread = 0;
static int64_t lego_trace_block = 0, lego_trace_executed = 0, lego_trace_full = 0, lego_trace_per_site = 0, lego_trace_budget = 0;
static int32_t lego_trace_occurrence[LEGO_TRACE_SITES];
static int64_t lego_trace_recorded[LEGO_TRACE_SITES];
static std::jmp_buf lego_trace_stop;
// The records of the two latest accesses (-1: not recorded) and the
// elements they address, which an instruction that moves more than the
// element widens when its address is that element.
static int64_t lego_trace_latest[2] = {-1, -1};
static const void* lego_trace_latest_at[2] = {nullptr, nullptr};
template <class T>
static inline int64_t lego_trace_access(int site, const T* array, int64_t index) {
  lego_trace_latest[1] = lego_trace_latest[0];
  lego_trace_latest_at[1] = lego_trace_latest_at[0];
  lego_trace_latest[0] = -1;
  lego_trace_latest_at[0] = array + index;
  if (lego_trace_recorded[site] < lego_trace_per_site) {
    lego_trace_latest[0] = int64_t(lego_trace_records.size());
    lego_trace_records.push_back({site, lego_trace_phase, lego_trace_occurrence[site], lego_trace_thread, lego_trace_block, index,
                                  (int32_t)sizeof(T), 0});
    if (++lego_trace_recorded[site] == lego_trace_per_site) ++lego_trace_full;
  }
  ++lego_trace_occurrence[site];
  if (lego_trace_full == LEGO_TRACE_SITES || ++lego_trace_executed >= lego_trace_budget) std::longjmp(lego_trace_stop, 1);
  return index;
}
#define LEGO_ACCESS(site, array, index) lego_trace_access(site, array, index)
)";
  if (cuda)
    s += cuda_on_cpu_shim() + R"(static inline void __syncthreads() {
  ++lego_trace_phase;
  for (auto& o : lego_trace_occurrence) o = 0;
}
// The trace runs one thread after another: a shuffle gives the lane its own
// value. Addresses that do not depend on shuffled values are traced exactly.
template <class T> static inline T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
template <class T> static inline T __shfl_up_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <class T> static inline T __shfl_down_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
static inline void __syncwarp(unsigned = 0xffffffffu) {}
// The atoms' device functions. An address argument written as a
// placeholder (&S[{{ smem S[r, c] }}]) was traced just before the call:
// that access becomes one of the bytes the instruction moves per lane (an
// address ldmatrix ignores is dropped). An address the trace did not see
// widens nothing. Registers come back zero, and an mma returns its C.
static inline void lego_trace_widen(const void* address, int32_t bytes) {
  for (int k = 0; k < 2; ++k)
    if (lego_trace_latest[k] >= 0 && lego_trace_latest_at[k] == address) {
      lego_trace_records[std::size_t(lego_trace_latest[k])].access_bytes = bytes;
      return;
    }
}
template <int N>
static inline void lego_trace_ldmatrix(uint32_t (&r)[N], const void* row) {
  lego_trace_widen(row, lego_trace_thread % 32 < 8 * N ? 16 : -1);
  for (auto& x : r) x = 0;
}
static inline void lego_ldmatrix_x1(uint32_t (&r)[1], const void* row) { lego_trace_ldmatrix(r, row); }
static inline void lego_ldmatrix_x2(uint32_t (&r)[2], const void* row) { lego_trace_ldmatrix(r, row); }
static inline void lego_ldmatrix_x4(uint32_t (&r)[4], const void* row) { lego_trace_ldmatrix(r, row); }
static inline void lego_ldmatrix_x1_trans(uint32_t (&r)[1], const void* row) { lego_trace_ldmatrix(r, row); }
static inline void lego_ldmatrix_x2_trans(uint32_t (&r)[2], const void* row) { lego_trace_ldmatrix(r, row); }
static inline void lego_ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) { lego_trace_ldmatrix(r, row); }
static inline void lego_stmatrix_x4(void* row, const uint32_t (&)[4]) { lego_trace_widen(row, 16); }
template <class D, class A, class B, int V, int W, int X>
static inline void lego_trace_mma(D (&d)[V], const A (&)[W], const B (&)[X], const D (&c)[V]) {
  for (int k = 0; k < V; ++k) d[k] = c[k];
}
static inline void lego_mma_m16n8k16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) { lego_trace_mma(d, a, b, c); }
static inline void lego_mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) { lego_trace_mma(d, a, b, c); }
static inline void lego_mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) { lego_trace_mma(d, a, b, c); }
static inline void lego_mma_m16n8k32_s8(int32_t (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const int32_t (&c)[4]) { lego_trace_mma(d, a, b, c); }
static inline void lego_mma_m8n8k4_f64(double (&d)[2], const double (&a)[1], const double (&b)[1], const double (&c)[2]) { lego_trace_mma(d, a, b, c); }
template <int N>
static inline void lego_trace_cp_async(void* to, const void* from) {
  lego_trace_widen(to, N);
  lego_trace_widen(from, N);
}
static inline void lego_cp_async_4(void* to, const void* from) { lego_trace_cp_async<4>(to, from); }
static inline void lego_cp_async_8(void* to, const void* from) { lego_trace_cp_async<8>(to, from); }
static inline void lego_cp_async_16(void* to, const void* from) { lego_trace_cp_async<16>(to, from); }
static inline void lego_cp_async_commit() {}
template <int N>
static inline void lego_cp_async_wait_group() {}
static inline void lego_cp_async_wait_all() {}
)";
  const std::string n = std::to_string(std::max<std::size_t>(sites, 1));
  return "#define LEGO_TRACE_SITES " + n + "\n" + s + "#line 1 \"kernel\"\n";
}

std::string runner_source(bool cuda) {
  std::string s = R"(
extern "C" int64_t lego_trace_run(void** args, const int64_t* launch, int64_t per_site, int64_t budget, const void** out) {
  lego_trace_records.clear();
  lego_trace_per_site = per_site;
  lego_trace_budget = budget;
  const int64_t threads = launch[3] * launch[4] * launch[5], blocks = launch[0] * launch[1] * launch[2];
  const int64_t b = blocks / 2;  // a block from the middle of the grid: away from the edges
)";
  if (cuda)
    s += R"(  lego_set_dims(launch);
  blockIdx = lego_unravel(b, launch[0], launch[1]);
)";
  s += R"(  for (int64_t t = 0; t < threads; ++t) {
)";
  if (cuda)
    s += R"(    threadIdx = lego_unravel(t, launch[3], launch[4]);
)";
  s += R"(    lego_trace_thread = int32_t(t);
    lego_trace_block = b;
    lego_trace_phase = 0;
    lego_trace_executed = lego_trace_full = 0;
    lego_trace_latest[0] = lego_trace_latest[1] = -1;
    lego_trace_latest_at[0] = lego_trace_latest_at[1] = nullptr;
    for (auto& o : lego_trace_occurrence) o = 0;
    for (auto& r : lego_trace_recorded) r = 0;
    if (setjmp(lego_trace_stop) == 0) lego_trace_entry(args);
  }
  *out = lego_trace_records.data();
  return int64_t(lego_trace_records.size());
}
// The JIT does not run this module's static destructors: the caller frees the records.
extern "C" void lego_trace_release() { std::vector<LegoTraceRecord>().swap(lego_trace_records); }
)";
  return s;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

Json make_trace_request(const kernel::Instance& marked, const TraceOptions& options, std::int64_t id) {
  Json tensors = Json::array(), sites = Json::array();
  for (const auto& t : marked.tensors) tensors.push_back({{"name", t.name}, {"type", kernel::c_type(t.type)}, {"elements", t.elements}});
  for (const auto& a : marked.accesses)
    sites.push_back(
        {{"site", a.site}, {"name", a.name}, {"kind", analysis::to_string(a.kind)}, {"placeholder", a.placeholder}, {"line", a.line}});
  const bool cuda = marked.backend == kernel::Backend::Cuda;
  std::vector<std::int64_t> launch(marked.grid.begin(), marked.grid.end());
  launch.insert(launch.end(), marked.block.begin(), marked.block.end());
  return {{"id", id},
          {"kind", "analyze"},
          {"kernel", marked.kernel},
          {"variant", marked.variant},
          {"backend", kernel::to_string(marked.backend)},
          {"source", marked.source},
          {"tensors", tensors},
          {"sites", sites},
          {"launch", launch},
          // One CPU thread stands for the whole loop: give it a longer sample.
          {"per_site", cuda ? options.per_site : options.per_site * 64},
          {"budget", cuda ? options.budget : options.budget * 16}};
}

Trace run_trace(const Json& request) {
  Trace trace;
  for (const auto& s : request.at("sites")) {
    const std::string word = s["kind"].get<std::string>();
    const std::optional<analysis::MemoryKind> kind = analysis::memory_kind_from_text(word);
    if (!kind) throw LegoError("trace request: access site kind \"" + word + "\" is not shared, global or host");
    trace.sites.push_back(
        {s["site"].get<int>(), s["name"].get<std::string>(), *kind, s["placeholder"].get<std::string>(), s["line"].get<int>()});
  }
  const bool cuda = kernel::backend_from_text(request.at("backend").get<std::string>()) == kernel::Backend::Cuda;
  std::vector<kernel::ElementType> types;
  for (const auto& t : request.at("tensors"))
    types.push_back(kernel::element_type_from_c_type(t.at("type").get<std::string>()).value_or(kernel::ElementType::F32));
  const std::string source = runtime_source(trace.sites.size(), cuda) + request.at("source").get<std::string>() +
                             entry_trampoline("lego_trace_entry", "lego_kernel", types) + runner_source(cuda);
  CompileOptions options;
  options.openmp = false;
  options.want_assembly = false;
  CompileResult c = compile_cpp(source, options);
  trace.compile_ms = c.ms;
  if (!c.module) throw LegoError("the traced kernel does not compile:\n" + c.diagnostics);
  using Run = std::int64_t (*)(void**, const std::int64_t*, std::int64_t, std::int64_t, const void**);
  auto* run = reinterpret_cast<Run>(c.module->lookup("lego_trace_run"));
  if (!run) throw LegoError("the traced kernel defines no lego_trace_run");
  // Zeroed storage the kernel may index anywhere; pages it never touches cost nothing.
  std::vector<std::unique_ptr<void, FreeDeleter>> storage;
  std::vector<void*> args;
  for (const auto& t : request.at("tensors")) {
    const auto bytes = element_size(element_from_name(t["type"])) * static_cast<std::size_t>(t["elements"].get<std::int64_t>());
    storage.emplace_back(std::calloc(bytes + 64, 1));
    if (!storage.back())
      throw LegoError("cannot allocate " + std::to_string(bytes) + " bytes to trace tensor " + t["name"].get<std::string>());
    args.push_back(storage.back().get());
  }
  const std::vector<std::int64_t> launch = request.at("launch").get<std::vector<std::int64_t>>();
  const auto start = std::chrono::steady_clock::now();
  const void* records = nullptr;
  const std::int64_t n =
      run(args.data(), launch.data(), request.at("per_site").get<std::int64_t>(), request.at("budget").get<std::int64_t>(), &records);
  trace.run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const auto* r = static_cast<const analysis::TraceRecord*>(records);
  trace.records.assign(r, r + n);
  if (auto* release = reinterpret_cast<void (*)()>(c.module->lookup("lego_trace_release"))) release();
  const std::int64_t b = launch[0] * launch[1] * launch[2] / 2;
  trace.block_index = {b % launch[0], b / launch[0] % launch[1], b / (launch[0] * launch[1])};
  return trace;
}

AccessAnalysis access_analysis(const Trace& trace, ReportDetail detail) {
  constexpr int kMaxSteps = 32;
  constexpr std::size_t kMaxTouches = 1 << 15;
  AccessAnalysis a;
  a.report = analysis::analyze_trace(trace.sites, trace.records);
  a.heatmap = detail.heatmap;
  for (const auto& s : a.report.sites)
    a.touches.push_back(detail.touches ? std::optional(analysis::site_touches(trace.records, s.info.site, kMaxSteps, kMaxTouches))
                                       : std::nullopt);
  a.simulated_block = trace.block_index;
  a.records = static_cast<std::int64_t>(trace.records.size());
  a.trace_compile_ms = trace.compile_ms;
  a.trace_run_ms = trace.run_ms;
  return a;
}

}  // namespace lego::run
