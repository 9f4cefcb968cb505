#include "run/bench_bundle.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "expr/diagnostic.hpp"
#include "run/bench_harness.hpp"
#include "run/export.hpp"

namespace lego::run {

// Shared by every variant file: registration, and the main program.
const char* const kHarnessHeader = R"(// LEGO Studio bench harness: each variant file registers itself here.
#pragma once
#include <cstdint>
#include <vector>

namespace lego_bench {

enum class Kind { F32, F64, I32, I64, F16 };  // F16: IEEE half as uint16_t bits

struct Tensor {
  const char* name;
  Kind kind;
  int element_bytes;
  bool input, output;
  std::vector<int64_t> extents;
  int64_t (*offset)(const int64_t* index);  // logical index -> position in the buffer (the layout's apply)
  int64_t physical = 0;                     // elements the buffer holds (padding: more than the extents)
};

struct Variant {
  const char* kernel;
  const char* id;
  const void* function;  // CUDA: the __global__ kernel; CPU: void (*)(void** buffers)
  unsigned grid[3], block[3];
  std::vector<Tensor> tensors;
  void (*reference)(void** logical);  // row-major logical buffers
  double bytes, flops, tolerance;
};

inline std::vector<Variant>& registry() {
  static std::vector<Variant> all;
  return all;
}

struct Register {
  explicit Register(Variant v) { registry().push_back(std::move(v)); }
};

}  // namespace lego_bench
)";

const char* const kAlignedAllocator = R"(// 64-byte aligned storage, as LEGO Studio's sweep allocates it.
template <class T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <class U>
  Aligned64(const Aligned64<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const Aligned64<U>&) const { return true; }
  template <class U>
  bool operator!=(const Aligned64<U>&) const { return false; }
};
)";

namespace {

const char* const kHarnessCommonHead = R"(// LEGO Studio bench harness: inputs, layouts and checks shared by the CUDA and CPU mains.
#pragma once
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

using namespace lego_bench;

)";

// After the allocator: the helpers.
const char* const kHarnessCommonBody = R"(
// Host buffers, 64-byte aligned as the sweep allocates them (vector stores
// such as _mm256_stream_ps need it).
using Bytes = std::vector<char, Aligned64<char>>;

// JSON string contents: quotes, backslashes and control characters escaped.
static std::string json_text(const char* s) {
  std::string out;
  for (; *s; ++s) {
    const unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); out += b; }
    else out += char(c);
  }
  return out;
}

// The results file's context, as Google Benchmark writes it, with LEGO Studio's fields.
static void write_context(FILE* out, const char* executable, const char* device, const char* arch, double copy_gbs) {
  char host[256] = "unknown", date[64];
  gethostname(host, sizeof host - 1);
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  std::fprintf(out,
               "{\n  \"context\": {\"date\": \"%s\", \"host_name\": \"%s\", \"executable\": \"%s\", \"num_cpus\": %u, "
               "\"library_build_type\": \"release\", \"lego_bench_results\": 1, \"device\": \"%s\", \"arch\": \"%s\", "
               "\"copy_gbs\": %.3f, \"slurm_job_id\": \"%s\", \"slurm_array_task_id\": \"%s\"},\n  \"benchmarks\": [",
               date, json_text(host).c_str(), json_text(executable).c_str(), std::thread::hardware_concurrency(), json_text(device).c_str(),
               json_text(arch).c_str(), copy_gbs, json_text(job ? job : "").c_str(), json_text(task ? task : "").c_str());
}

// One benchmark: Google Benchmark's fields, then LEGO Studio's.
static void write_benchmark(FILE* out, bool first, const Variant& var, size_t iterations, double median, bool verified, long long mismatches,
                            double max_error, double copy_gbs) {
  const double gbs = var.bytes / (median * 1e-3) / 1e9, gflops = var.flops / (median * 1e-3) / 1e9;
  const std::string name = json_text(var.kernel) + "/" + json_text(var.id);
  std::fprintf(out,
               "%s\n    {\"name\": \"%s\", \"run_name\": \"%s\", \"run_type\": \"iteration\", \"repetitions\": 1, "
               "\"repetition_index\": 0, \"threads\": 1, \"iterations\": %zu, \"real_time\": %.6f, \"cpu_time\": %.6f, "
               "\"time_unit\": \"ms\", \"bytes_per_second\": %.6g, ",
               first ? "" : ",", name.c_str(), name.c_str(), iterations, median, median, gbs * 1e9);
  std::fprintf(out,
               "\"kernel\": \"%s\", \"variant\": \"%s\", \"verified\": %s, \"mismatches\": %lld, \"max_error\": %.6g, "
               "\"median_ms\": %.6f, \"gbs\": %.3f, \"gflops\": %.3f, \"percent_of_copy\": %.2f}",
               json_text(var.kernel).c_str(), json_text(var.id).c_str(), verified ? "true" : "false", mismatches,
               std::isinf(max_error) ? 1e300 : max_error, median, gbs, gflops, copy_gbs > 0 ? 100 * gbs / copy_gbs : 0.0);
}

static int64_t elements(const Tensor& t) {
  int64_t n = 1;
  for (auto e : t.extents) n *= e;
  return n;
}

static size_t physical_bytes(const Tensor& t) { return size_t(std::max(elements(t), t.physical)) * size_t(t.element_bytes); }

static void fill(Bytes& buf, const Tensor& t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t n = elements(t);
  for (int64_t k = 0; k < n; ++k) {
    const double u = std::uniform_real_distribution<double>(-1, 1)(rng);
    const int64_t v = std::uniform_int_distribution<int64_t>(-100, 100)(rng);
    switch (t.kind) {
      case Kind::F32: reinterpret_cast<float*>(buf.data())[k] = float(u); break;
      case Kind::F64: reinterpret_cast<double*>(buf.data())[k] = u; break;
      case Kind::I32: reinterpret_cast<int32_t*>(buf.data())[k] = int32_t(v); break;
      case Kind::I64: reinterpret_cast<int64_t*>(buf.data())[k] = v; break;
      case Kind::F16: reinterpret_cast<uint16_t*>(buf.data())[k] = lego_half::float_to_half(float(u)); break;  // F32's values, rounded
    }
  }
}

// physical[offset(index of k)] <-> logical[k], row-major k.
static void permute(const Tensor& t, const char* from, char* to, bool pack) {
  const int64_t n = elements(t);
  std::vector<int64_t> index(t.extents.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t p = t.offset(index.data());
    if (pack)
      std::memcpy(to + p * t.element_bytes, from + k * t.element_bytes, size_t(t.element_bytes));
    else
      std::memcpy(to + k * t.element_bytes, from + p * t.element_bytes, size_t(t.element_bytes));
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < t.extents[d]) break;
      index[d] = 0;
    }
  }
}

// An output against the reference's, by lego_check's rule (above): the
// worker's own. tolerance 0: the element type's default.
static lego_check::Checked check(const Tensor& t, const char* got, const char* want, double tolerance) {
  const int64_t n = elements(t);
  switch (t.kind) {
    case Kind::F32: return lego_check::check_elements(reinterpret_cast<const float*>(got), reinterpret_cast<const float*>(want), n, tolerance);
    case Kind::F64: return lego_check::check_elements(reinterpret_cast<const double*>(got), reinterpret_cast<const double*>(want), n, tolerance);
    case Kind::I32: return lego_check::check_elements(reinterpret_cast<const int32_t*>(got), reinterpret_cast<const int32_t*>(want), n, tolerance);
    case Kind::I64: return lego_check::check_elements(reinterpret_cast<const int64_t*>(got), reinterpret_cast<const int64_t*>(want), n, tolerance);
    case Kind::F16: return lego_check::check_half_elements(reinterpret_cast<const uint16_t*>(got), reinterpret_cast<const uint16_t*>(want), n, tolerance);
  }
  return {};
}
)";

const char* const kCudaMain = R"(// LEGO Studio bench harness: verifies and times every registered variant.
// Usage: ./bench [results.json] [timed runs, default 50; 0: verify only]
// With 0 runs each variant is launched once and checked, nothing is timed and
// no result is written: the mode for a profiler (`make profile` runs ncu so).
// results.json: Google Benchmark's JSON, with LEGO Studio's fields (kernel,
// variant, verified, median_ms, gbs, percent_of_copy) on each benchmark.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "harness_common.hpp"

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e = (call);                                                              \
    if (e != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

static double copy_bandwidth(size_t bytes) {
  void *a, *b;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  std::vector<float> times;
  for (int r = 0; r < 20; ++r) {
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 2.0 * double(bytes) / (times[times.size() / 2] * 1e-3) / 1e9;
}

int main(int argc, char** argv) {
  const char* out_path = argc > 1 ? argv[1] : "results.json";
  int runs = 50;
  if (argc > 2) {
    char* end = nullptr;
    const long n = std::strtol(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || n < 0 || n > 100000) {
      std::fprintf(stderr, "timed runs: a whole number from 0 (verify only) to 100000, not '%s'\n", argv[2]);
      return 1;
    }
    runs = int(n);
  }
  const bool verify_only = runs == 0;
  if (!verify_only && runs < 20) {
    std::fprintf(stderr, "(%d timed runs asked for; 20 are the fewest a median is taken of)\n", runs);
    runs = 20;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const size_t l2 = size_t(prop.l2CacheSize);
  const double copy_gbs = copy_bandwidth(std::max<size_t>(256u << 20, 8 * l2));
  std::fprintf(verify_only ? stderr : stdout, "device %s (sm_%d%d), copy bandwidth %.1f GB/s\n", prop.name, prop.major, prop.minor,
               copy_gbs);
  // Verify-only writes no results: the file named is left as it is, and the
  // harness's lines go to stderr so a profiler's report on stdout stays clean.
  FILE* out = verify_only ? nullptr : std::fopen(out_path, "w");
  FILE* log = verify_only ? stderr : stdout;
  if (!out && !verify_only) {
    std::perror(out_path);
    return 1;
  }
  const std::string arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  if (out) write_context(out, argv[0], prop.name, arch.c_str(), copy_gbs);
  int failures = 0;
  // The reference's outputs, kept for the next variant of the same kernel at
  // the same sizes: its inputs are filled the same way, so they are the same
  // (a reference at full size can take minutes; it runs once per kernel and size).
  std::string cached_key;
  std::vector<Bytes> cached_outputs;
  for (size_t v = 0; v < registry().size(); ++v) {
    const Variant& var = registry()[v];
    std::string key = var.kernel;
    for (const Tensor& t : var.tensors) {
      key += std::string("|") + t.name + ":" + std::to_string(int(t.kind));
      for (int64_t e : t.extents) key += "," + std::to_string(e);
    }
    // Logical inputs, the reference's outputs, and the packed buffers.
    std::vector<Bytes> logical, physical;
    size_t set_bytes = 0;
    for (size_t k = 0; k < var.tensors.size(); ++k) {
      const Tensor& t = var.tensors[k];
      const size_t bytes = physical_bytes(t);
      logical.emplace_back(size_t(elements(t)) * size_t(t.element_bytes));
      fill(logical.back(), t, 1000003ull + k);
      physical.emplace_back(bytes);
      if (t.output && !t.input) std::memset(physical.back().data(), 0xff, bytes);  // NaN / -1: unwritten elements show
      permute(t, logical.back().data(), physical.back().data(), true);
      set_bytes += bytes;
    }
    std::vector<void*> host_args;
    for (auto& l : logical) host_args.push_back(l.data());
    if (key == cached_key) {
      for (size_t k = 0; k < var.tensors.size(); ++k)
        if (var.tensors[k].output) logical[k] = cached_outputs[k];
    } else {
      var.reference(host_args.data());
      cached_key = key;
      cached_outputs.assign(logical.size(), Bytes());
      for (size_t k = 0; k < var.tensors.size(); ++k)
        if (var.tensors[k].output) cached_outputs[k] = logical[k];
    }
    // Enough copies that consecutive timed runs never find their data in L2.
    const int rotation = int(std::min<size_t>(64, 2 * l2 / std::max<size_t>(set_bytes, 1) + 1));
    std::vector<std::vector<void*>> sets(size_t(rotation), std::vector<void*>(var.tensors.size()));
    for (auto& set : sets)
      for (size_t k = 0; k < var.tensors.size(); ++k) {
        CHECK(cudaMalloc(&set[k], physical[k].size()));
        CHECK(cudaMemcpy(set[k], physical[k].data(), physical[k].size(), cudaMemcpyHostToDevice));
      }
    auto launch = [&](size_t s) {
      std::vector<void*> args;
      for (auto& p : sets[s]) args.push_back(&p);
      CHECK(cudaLaunchKernel(var.function, dim3(var.grid[0], var.grid[1], var.grid[2]), dim3(var.block[0], var.block[1], var.block[2]),
                             args.data(), 0, nullptr));
    };
    launch(0);
    CHECK(cudaDeviceSynchronize());
    double max_error = 0;
    int64_t mismatches = 0;
    for (size_t k = 0; k < var.tensors.size(); ++k) {
      const Tensor& t = var.tensors[k];
      if (!t.output) continue;
      Bytes got(physical[k].size()), unpacked(logical[k].size());
      CHECK(cudaMemcpy(got.data(), sets[0][k], got.size(), cudaMemcpyDeviceToHost));
      permute(t, got.data(), unpacked.data(), false);
      const lego_check::Checked c = check(t, unpacked.data(), logical[k].data(), var.tolerance);
      mismatches += c.mismatches;
      max_error = std::max(max_error, c.max_error);
    }
    if (verify_only) {
      for (auto& set : sets)
        for (auto p : set) CHECK(cudaFree(p));
      failures += mismatches != 0;
      std::fprintf(log, "%-16s %-60s %s (verified only)\n", var.kernel, var.id, mismatches == 0 ? "ok   " : "WRONG");
      continue;
    }
    for (int w = 0; w < 3; ++w) launch(size_t(w % rotation));
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<float> times;
    for (int r = 0; r < runs; ++r) {
      CHECK(cudaEventRecord(start));
      launch(size_t(r % rotation));
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      times.push_back(ms);
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    for (auto& set : sets)
      for (auto p : set) CHECK(cudaFree(p));
    std::vector<float> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    const bool verified = mismatches == 0;
    failures += !verified;
    std::printf("%-16s %-60s %s %10.4f ms %9.1f GB/s %9.1f GFLOP/s\n", var.kernel, var.id, verified ? "ok   " : "WRONG", median,
                var.bytes / (median * 1e-3) / 1e9, var.flops / (median * 1e-3) / 1e9);
    write_benchmark(out, v == 0, var, times.size(), median, verified, mismatches, max_error, copy_gbs);
  }
  if (out) {
    std::fprintf(out, "\n  ]\n}\n");
    std::fclose(out);
    std::printf("results written to %s (%d of %zu variants wrong)\n", out_path, failures, registry().size());
  } else {
    std::fprintf(log, "verified only, nothing timed or written (%d of %zu variants wrong)\n", failures, registry().size());
  }
  return failures ? 2 : 0;
}
)";

const char* kind_of(kernel::ElementType t) {
  switch (t) {
    case kernel::ElementType::F32:
      return "Kind::F32";
    case kernel::ElementType::F64:
      return "Kind::F64";
    case kernel::ElementType::I32:
      return "Kind::I32";
    case kernel::ElementType::I64:
      return "Kind::I64";
    case kernel::ElementType::F16:
      return "Kind::F16";
  }
  return "Kind::F32";
}

std::string without(std::string text, const std::string& line) {
  if (const auto at = text.find(line); at != std::string::npos) text.erase(at, line.size());
  return text;
}

// run/half.hpp's and run/element_check.hpp's texts, in that order, less
// their #pragma once and the include of the first (all of it goes inside
// harness_common.hpp).
std::string element_check_text() {
  const std::string half =
#include "half_text.inc"
      ;
  const std::string check =
#include "element_check_text.inc"
      ;
  const std::string pragma = "#pragma once\n";
  return without(half, pragma) + without(without(check, pragma), "#include \"half.hpp\"\n");
}

}  // namespace

std::string harness_common() { return std::string(kHarnessCommonHead) + element_check_text() + kAlignedAllocator + kHarnessCommonBody; }

namespace {

// A C string literal of any text (quotes, backslashes and control characters escaped).
std::string c_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += fmt::format("\\{:03o}", static_cast<unsigned char>(c));  // a newline in a name stays in its string
    else
      out += c;
  }
  return out + "\"";
}

}  // namespace

std::string variant_banner(const kernel::Instance& inst) {
  return "// " + kernel::comment_text(inst.kernel) + ", variant " + kernel::comment_text(inst.variant) + " (exported by LEGO Studio)\n";
}

std::string registration(const kernel::Instance& inst, const TensorCode& code, const std::string& function) {
  const double tolerance = inst.tolerance > 0 ? inst.tolerance : 0;  // 0: the element type's default, as in the worker
  return "static lego_bench::Register registration({" + c_string(inst.kernel) + ", " + c_string(inst.variant) + ", (const void*)" +
         function + ", " +
         fmt::format("{{{}, {}, {}}}, {{{}, {}, {}}}, {{", inst.grid[0], inst.grid[1], inst.grid[2], inst.block[0], inst.block[1],
                     inst.block[2]) +
         code.tensors + fmt::format("}}, reference_entry, {}, {}, {}}});\n", inst.bytes, inst.flops, tolerance);
}

TensorCode tensor_code(const kernel::Instance& inst) {
  TensorCode out;
  for (std::size_t k = 0; k < inst.tensors.size(); ++k) {
    const auto& t = inst.tensors[k];
    const OffsetCode code = offset_code(inst, t, sym::Lang::C);
    out.offsets += "// " + kernel::comment_text(t.name) + ": layout \"" + kernel::comment_text(t.layout_name) +
                   "\": " + kernel::comment_text(t.view_text) + "\nstatic int64_t offset_" + t.name + "(const int64_t* index) {\n";
    for (std::size_t i = 0; i < code.indices.size(); ++i)
      out.offsets += "  const int64_t " + code.indices[i] + " = index[" + std::to_string(i) + "];\n";
    out.offsets += code.declarations + "  return " + code.offset + ";\n}\n";
    std::string extents;
    for (auto e : t.extents) extents += (extents.empty() ? "" : ", ") + std::to_string(e);
    out.tensors +=
        fmt::format("{}{{{}, lego_bench::{}, {}, {}, {}, {{{}}}, offset_{}, {}}}", k ? ", " : "", c_string(t.name), kind_of(t.type),
                    kernel::element_bytes(t.type), t.role != kernel::Role::Out, t.role != kernel::Role::In, extents, t.name, t.elements);
    const std::string type = std::string(t.role == kernel::Role::In ? "const " : "") + kernel::c_type(t.type) + "*";
    out.call += fmt::format("{}({})a[{}]", k ? ", " : "", type, k);
    out.params += (k ? ", " : "") + type;
  }
  return out;
}

namespace {

// The variant's source renamed apart (each file is its own translation unit
// but all link into one program), its offsets, reference and registration.
std::string cuda_variant_file(const kernel::Instance& inst, std::size_t n) {
  const std::string suffix = "_" + std::to_string(n);
  std::string f = variant_banner(inst) + "#include <cstdint>\n#include \"harness.hpp\"\n";
  f += "#define lego_kernel lego_kernel" + suffix + "\n#define lego_reference lego_reference" + suffix + "\n";
  f += "namespace variant" + suffix + " {\n";
  f += inst.source + "\n";
  std::string reference = inst.reference;
  if (reference.starts_with("#include <cstdint>\n")) reference.erase(0, std::string("#include <cstdint>\n").size());
  f += "namespace reference {\n" + reference + "\n}  // namespace reference\n";
  const TensorCode code = tensor_code(inst);
  f += code.offsets;
  f += "static void reference_entry(void** a) { reference::lego_reference(" + code.call + "); }\n";
  f += registration(inst, code, "lego_kernel");
  f += "}  // namespace variant" + suffix + "\n";
  return f;
}

}  // namespace

// The counters `make profile` reads: what `lego analyze` predicts per access
// (bank conflicts and wavefronts of shared loads and stores; global sectors per
// request), summed over a launch. ldmatrix has no wavefront counter of its own
// on sm_90 (ncu 2025.3): its wavefronts are in op_ld's, beside its instruction
// count, so wavefronts per ldmatrix.x4 is op_ld's over op_ldsm's when a kernel
// has no other shared loads.
constexpr const char* kProfileMetrics =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
    "smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,"
    "smsp__inst_executed_op_ldsm.sum,"
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";

std::map<std::string, std::string> bench_bundle(const std::vector<kernel::Instance>& instances) {
  std::map<std::string, std::string> files;
  files["harness.hpp"] = kHarnessHeader;
  files["harness_common.hpp"] = harness_common();
  files["harness.cu"] = kCudaMain;
  std::string objects, table;
  for (std::size_t n = 0; n < instances.size(); ++n) {
    if (instances[n].backend != kernel::Backend::Cuda)
      throw LegoError("kernel " + instances[n].kernel + " is a CPU kernel; export-bench writes CUDA kernels");
    files["variant_" + std::to_string(n) + ".cu"] = cuda_variant_file(instances[n], n);
    objects += " variant_" + std::to_string(n) + ".o";
    table += "| variant_" + std::to_string(n) + ".cu | " + instances[n].kernel + " | `" + instances[n].variant + "` |\n";
  }
  files["Makefile"] =
      "# Needs only the CUDA toolkit. ARCH: the GPU's compute capability (sm_80 A100, sm_90 H100).\n"
      "NVCC ?= nvcc\nARCH ?= sm_80\nNVCCFLAGS ?= -O3 -std=c++17 -arch=$(ARCH) -lineinfo -diag-suppress 177\n\n"
      "bench: harness.o" +
      objects +
      "\n\t$(NVCC) $(NVCCFLAGS) -o $@ $^\n\n"
      "%.o: %.cu harness.hpp harness_common.hpp\n\t$(NVCC) $(NVCCFLAGS) -c -o $@ $<\n\n"
      "run: bench\n\t./bench results.json\n\n"
      "# Shared-memory bank conflicts and wavefronts, global sectors and requests, one launch of each variant.\n"
      "NCU ?= ncu\nNCU_METRICS ?= " +
      std::string(kProfileMetrics) +
      "\nprofile: bench\n\t$(NCU) -k regex:lego_kernel_ --metrics $(NCU_METRICS) --csv ./bench profile.json 0 | grep '^\"' > "
      "profile.csv\n\n"
      "clean:\n\trm -f bench *.o results.json profile.csv\n\n.PHONY: run profile clean\n";
  files["README.md"] =
      "# LEGO Studio bench bundle\n\nStandalone CUDA sources for " + std::to_string(instances.size()) +
      " variants, a harness and a Makefile. Needs only nvcc.\n\n    make -j ARCH=sm_90 run     # sm_80 for A100\n\n"
      "Each variant is verified against the reference on random inputs packed into its layouts, then timed with CUDA events "
      "(3 warm-up runs, median of 50; the tensors are rotated through enough copies to exceed twice the L2 cache). "
      "`results.json` is Google Benchmark's JSON: the device and its measured copy bandwidth in its context, one benchmark per "
      "variant with LEGO Studio's fields (verified, median_ms, gbs, percent_of_copy); bring it back with\n\n"
      "    lego import-results <project>.lego.json results.json\n\n"
      "With Nsight Compute, `make profile` launches each variant once (verified, not timed) under ncu and writes `profile.csv`, "
      "its rows only: shared-memory bank conflicts and wavefronts, ldmatrix instructions, global sectors and requests, the "
      "counters `lego analyze` predicts. A metric this ncu does not know stops it: drop it from NCU_METRICS (make profile "
      "NCU_METRICS=...).\n\n| file | kernel | variant |\n|---|---|---|\n" +
      table;
  return files;
}

}  // namespace lego::run
