#include "run/cpu_bundle.hpp"

#include "expr/diagnostic.hpp"
#include "run/bench_harness.hpp"

namespace lego::run {
namespace {

// The CPU main: verifies each registered variant against its reference on
// random inputs packed into its layouts, times it (median of at least 5
// calls over at least 0.3 s, after a warm call) and writes Google
// Benchmark's JSON with LEGO Studio's fields on each benchmark.
const char* const kCpuMain = R"main(// LEGO Studio bench harness (CPU): verifies and times every registered variant.
// Usage: ./bench results.json
#include <chrono>

#include "harness_common.hpp"

int main(int argc, char** argv) {
  const char* out_path = argc > 1 ? argv[1] : "results.json";
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  const std::string device = std::string(host) + " (CPU)";
  struct Row {
    const Variant* variant;
    size_t iterations;
    double median;
    bool verified;
    long long mismatches;
    double max_error;
  };
  std::vector<Row> rows;
  int failures = 0;
  using clock = std::chrono::steady_clock;
  for (size_t v = 0; v < registry().size(); ++v) {
    const Variant& var = registry()[v];
    std::vector<Bytes> logical, physical;
    for (size_t k = 0; k < var.tensors.size(); ++k) {
      const Tensor& t = var.tensors[k];
      logical.emplace_back(size_t(elements(t)) * size_t(t.element_bytes));
      fill(logical.back(), t, 1000003ull + k);
      physical.emplace_back(physical_bytes(t));
      if (t.output && !t.input) std::memset(physical.back().data(), 0xff, physical.back().size());  // unwritten elements show
      permute(t, logical.back().data(), physical.back().data(), true);
    }
    std::vector<void*> reference_args, args;
    for (auto& l : logical) reference_args.push_back(l.data());
    for (auto& p : physical) args.push_back(p.data());
    var.reference(reference_args.data());
    auto run = reinterpret_cast<void (*)(void**)>(const_cast<void*>(var.function));
    run(args.data());
    double max_error = 0;
    long long mismatches = 0;
    for (size_t k = 0; k < var.tensors.size(); ++k) {
      const Tensor& t = var.tensors[k];
      if (!t.output) continue;
      Bytes unpacked(logical[k].size());
      permute(t, physical[k].data(), unpacked.data(), false);
      const lego_check::Checked c = check(t, unpacked.data(), logical[k].data(), var.tolerance);
      mismatches += c.mismatches;
      max_error = std::max(max_error, c.max_error);
    }
    std::vector<double> times;
    const auto start = clock::now();
    while (times.size() < 5 || (times.size() < 100000 && clock::now() - start < std::chrono::milliseconds(300))) {
      const auto t0 = clock::now();
      run(args.data());
      times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const bool verified = mismatches == 0;
    failures += !verified;
    const double gbs = var.bytes / (median * 1e-3) / 1e9, gflops = var.flops / (median * 1e-3) / 1e9;
    std::printf("%-16s %-60s %s %10.4f ms %9.1f GB/s %9.1f GFLOP/s\n", var.kernel, var.id, verified ? "ok   " : "WRONG", median, gbs, gflops);
    rows.push_back({&var, times.size(), median, verified, mismatches, max_error});
  }
  FILE* out = std::fopen((std::string(out_path) + ".partial").c_str(), "w");
  if (!out) {
    std::perror(out_path);
    return 1;
  }
  write_context(out, argv[0], device.c_str(), "host", 0);
  for (size_t k = 0; k < rows.size(); ++k)
    write_benchmark(out, k == 0, *rows[k].variant, rows[k].iterations, rows[k].median, rows[k].verified, rows[k].mismatches,
                    rows[k].max_error, 0);
  std::fprintf(out, "\n  ]\n}\n");
  // Whole or not at all: a task killed while writing leaves no results file.
  if (std::fclose(out) != 0 || std::rename((std::string(out_path) + ".partial").c_str(), out_path) != 0) {
    std::perror(out_path);
    return 1;
  }
  std::printf("results written to %s (%d of %zu variants wrong)\n", out_path, failures, registry().size());
  return failures ? 2 : 0;
}
)main";

// The kernel as the JIT compiles it, renamed apart so that several link
// into one program, in a translation unit of its own: a macro or a name it
// defines cannot reach the code that registers and checks it. It is called
// through a trampoline defined here, whatever its linkage.
std::string kernel_file(const kernel::Instance& inst, std::size_t n) {
  const std::string suffix = "_" + std::to_string(n);
  std::string source = inst.source;
  if (auto at = source.find("#line 1 "); at != std::string::npos) source.erase(at, source.find('\n', at) - at + 1);
  const TensorCode code = tensor_code(inst);
  std::string f = variant_banner(inst) + "#include <cstdint>\n";
  f += "#define lego_kernel lego_kernel" + suffix + "\n" + source + "\n#undef lego_kernel\n";
  f += "extern \"C\" void lego_entry" + suffix + "(void** a) { lego_kernel" + suffix + "(" + code.call + "); }\n";
  return f;
}

// Its offsets, reference entry and registration, which the harness checks
// it by: this file never sees the kernel's text.
std::string cpu_variant_file(const kernel::Instance& inst, std::size_t n) {
  const std::string suffix = "_" + std::to_string(n);
  const TensorCode code = tensor_code(inst);
  std::string f = variant_banner(inst) + "#include \"harness.hpp\"\n";
  f += "extern \"C\" void lego_entry" + suffix + "(void** a);\n";
  f += "extern \"C\" void lego_reference" + suffix + "(" + code.params + ");\n";
  f += "namespace variant" + suffix + " {\n" + code.offsets;
  f += "static void reference_entry(void** a) { lego_reference" + suffix + "(" + code.call + "); }\n";
  f += registration(inst, code, "lego_entry" + suffix);
  f += "}  // namespace variant" + suffix + "\n";
  return f;
}

}  // namespace

std::map<std::string, std::string> cpu_bundle(const std::vector<kernel::Instance>& instances) {
  std::map<std::string, std::string> files;
  files["harness.hpp"] = kHarnessHeader;
  files["harness_common.hpp"] = harness_common();
  files["harness_cpu.cpp"] = kCpuMain;
  for (std::size_t n = 0; n < instances.size(); ++n) {
    const kernel::Instance& inst = instances[n];
    if (inst.backend == kernel::Backend::Cuda)
      throw LegoError("kernel " + inst.kernel + " is a CUDA kernel; its variants go in the CUDA bench bundle");
    files["variant_" + std::to_string(n) + ".cpp"] = cpu_variant_file(inst, n);
    files["variant_" + std::to_string(n) + "_kernel.cpp"] = kernel_file(inst, n);
    files["variant_" + std::to_string(n) + "_reference.cpp"] =
        "// " + kernel::comment_text(inst.kernel) + "'s reference (exported by LEGO Studio)\n#define lego_reference lego_reference_" +
        std::to_string(n) + "\n" + inst.reference + "\n";
  }
  return files;
}

}  // namespace lego::run
