#include "run/export.hpp"

#include <fmt/format.h>

#include "layout/derive.hpp"
#include "layout/parse.hpp"
#include "run/analyze.hpp"
#include "run/bench_harness.hpp"
#include "run/jit.hpp"
#include "run/nvrtc.hpp"
#include "run/sweep.hpp"
#include "run/worker_client.hpp"

namespace lego::run {

OffsetCode offset_code(const kernel::Instance& inst, const kernel::BoundTensor& tensor, sym::Lang lang) {
  OffsetCode out;
  for (std::size_t k = 0; k < tensor.extents.size(); ++k) out.indices.push_back("i" + std::to_string(k));
  DeriveRequest request;
  request.indices = out.indices;
  request.lang = lang;
  const DeriveResult d = derive(parse_layout(tensor.view_text), inst.parameters, request);
  for (const auto& [name, e] : d.temporaries) out.declarations += "  const " + d.index_type + " " + name + " = " + e + ";\n";
  out.offset = d.exprs.at(0);
  return out;
}

namespace {

// How the code was generated where there was a choice (a loop nest or the
// flat form, a register transpose, a copy marked for vectors), for the
// README: the reader of an export sees why the loops look as they do.
std::string generation_notes(const std::vector<std::string>& notes) {
  if (notes.empty()) return "";
  std::string out = "\nHow LEGO Studio generated it:\n\n";
  for (const std::string& note : notes) out += "- " + note + "\n";
  return out;
}

// `QUALIFIERS int64_t A_offset(int64_t i0, ..)`: where element (i0, ..) of a tensor lives in its buffer.
std::string offset_function(const kernel::Instance& inst, const kernel::BoundTensor& t, sym::Lang lang, const char* qualifiers) {
  const OffsetCode code = offset_code(inst, t, lang);
  std::string signature;
  for (const auto& i : code.indices) signature += (signature.empty() ? "" : ", ") + std::string("int64_t ") + i;
  return fmt::format("{} int64_t {}_offset({}) {{\n{}  return {};\n}}\n", qualifiers, t.name, signature, code.declarations, code.offset);
}

// An exported example's value for element k of `t`, as C++ of its type: a
// half is its bits, which the prelude converts; integers take k % 97
// itself (a scale of 0.5 would make them all zero).
std::string example_fill(const kernel::BoundTensor& t) {
  const std::string type = kernel::c_type(t.type);
  if (t.type == kernel::ElementType::F16) return "lego_float_to_half(float(k % 97) * 0.5f)";
  if (t.type == kernel::ElementType::I32 || t.type == kernel::ElementType::I64) return fmt::format("{0}(k % 97)", type);
  return fmt::format("{0}(k % 97) * {0}(0.5)", type);
}

// The CUDA export's host caller: the kernel's file included (one
// translation unit, no -rdc), buffers filled as the CPU example fills them,
// one launch at the variant's shape whose outputs' checksums it prints, and
// the median of repeated launches timed with CUDA events.
std::string cuda_example(const std::string& base, const kernel::Instance& inst) {
  std::string out =
      "// Launches the exported kernel on filled buffers, prints a checksum of the first launch's output and the median\n"
      "// time of repeated launches (CUDA events).\n// Build: nvcc -O3 -arch=sm_90 example.cu -o example\n"
      "#include <cuda_runtime.h>\n\n#include <algorithm>\n#include <cstdio>\n#include <cstdlib>\n#include <vector>\n\n"
      "#include \"" +
      base +
      ".cu\"\n\n"
      "static void check(cudaError_t e, const char* what) {\n"
      "  if (e != cudaSuccess) {\n    std::fprintf(stderr, \"%s: %s\\n\", what, cudaGetErrorString(e));\n    std::exit(1);\n  }\n}\n\n"
      "int main() {\n";
  std::string args, sums;
  for (const auto& t : inst.tensors) {
    const std::string type = kernel::c_type(t.type);
    const bool half = t.type == kernel::ElementType::F16;
    const std::string fill = example_fill(t);
    out += fmt::format(
        "  std::vector<{0}> {1}({2});\n  for (size_t k = 0; k < {1}.size(); ++k) {1}[k] = {3};\n  {0}* d_{1} = nullptr;\n"
        "  check(cudaMalloc(&d_{1}, {1}.size() * sizeof({0})), \"cudaMalloc {1}\");\n"
        "  check(cudaMemcpy(d_{1}, {1}.data(), {1}.size() * sizeof({0}), cudaMemcpyHostToDevice), \"copy {1} in\");\n",
        type, t.name, t.elements, fill);
    args += (args.empty() ? "" : ", ") + std::string("d_") + t.name;
    if (t.role != kernel::Role::In)
      sums += fmt::format(
          "  check(cudaMemcpy({0}.data(), d_{0}, {0}.size() * sizeof({1}), cudaMemcpyDeviceToHost), \"copy {0} out\");\n"
          "  double sum_{0} = 0;\n  for (auto v : {0}) sum_{0} += {2};\n  std::printf(\"checksum {0} = %.17g\\n\", sum_{0});\n",
          t.name, type, half ? "lego_half_to_float(v)" : "v");
  }
  out += fmt::format("  const dim3 grid({}, {}, {}), block({}, {}, {});\n", inst.grid[0], inst.grid[1], inst.grid[2], inst.block[0],
                     inst.block[1], inst.block[2]);
  out += "  lego_kernel<<<grid, block>>>(" + args + ");\n  check(cudaGetLastError(), \"launch\");\n" +
         "  check(cudaDeviceSynchronize(), \"the first launch\");\n" + sums +
         "  cudaEvent_t start, stop;\n  check(cudaEventCreate(&start), \"event\");\n  check(cudaEventCreate(&stop), \"event\");\n"
         "  std::vector<float> times;\n  for (int k = 0; k < 20; ++k) {\n    cudaEventRecord(start);\n"
         "    lego_kernel<<<grid, block>>>(" +
         args +
         ");\n    cudaEventRecord(stop);\n"
         "    check(cudaEventSynchronize(stop), \"a timed launch\");\n    float ms = 0;\n    cudaEventElapsedTime(&ms, start, stop);\n"
         "    times.push_back(ms);\n  }\n  std::sort(times.begin(), times.end());\n"
         "  std::printf(\"median %.4f ms over %zu launches\\n\", times[times.size() / 2], times.size());\n  return 0;\n}\n";
  return out;
}

// A CUDA variant: the kernel (.cu, compiles with nvcc or NVRTC), its layouts
// and offsets (.cuh, host and device), a host caller (example.cu) and the
// PTX NVRTC made for sm_80.
std::map<std::string, std::string> export_cuda(const kernel::KernelSpec& spec, const kernel::Instance& inst) {
  const std::string base = spec.name;
  std::string header = "// " + spec.name + ", variant " + inst.variant + " (exported by LEGO Studio)\n#pragma once\n#include <cstdint>\n\n";
  for (const auto& t : inst.tensors)
    header += fmt::format("// {} ({}, {}), layout \"{}\":\n//   {}\n{}\n", t.name, kernel::to_string(t.role), kernel::c_type(t.type),
                          t.layout_name, t.view_text, offset_function(inst, t, sym::Lang::Cuda, "__host__ __device__ inline"));
  std::string source = inst.source;
  if (auto at = source.find("#line 1 "); at != std::string::npos) source.erase(at, source.find('\n', at) - at + 1);
  std::string launch = fmt::format("grid ({}, {}, {}), block ({}, {}, {})", inst.grid[0], inst.grid[1], inst.grid[2], inst.block[0],
                                   inst.block[1], inst.block[2]);
  std::map<std::string, std::string> files = {
      // The prelude defines every helper a template may use; nvcc warns of
      // each this kernel does not (#177-D, 25 of them for a transpose).
      {base + ".cu",
       "// launch: " + launch + "\n#pragma nv_diag_suppress 177  // helpers of the prelude this kernel does not use\n" + source},
      {base + ".cuh", header},
      {"example.cu", cuda_example(base, inst)},
      {"README.md",
       "# " + spec.name + " — variant " + inst.variant + "\n\n" + spec.description +
           "\n\nExported by LEGO Studio: CUDA C++ that NVRTC compiled here for sm_80 (nvcc was not run; a template may hold code only "
           "NVRTC takes).\n\n    nvcc -O3 -arch=sm_90 -c " +
           base +
           ".cu\n\n`example.cu` launches it on filled buffers and times it: `nvcc -O3 -arch=sm_90 example.cu -o example && ./example`.\n\n"
           "Launch `lego_kernel` with " +
           launch + ", one pointer per tensor in this order:" +
           [&] {
             std::string list;
             for (const auto& t : inst.tensors) list += " " + t.name;
             return list;
           }() +
           ". `" + base + ".cuh` gives `<tensor>_offset(i, ..)`, where an element lives in its buffer. `" + base +
           ".ptx` is NVRTC's PTX for sm_80.\n"}};
  // Compiled by a worker, with its time limit. A kernel that does not
  // compile is not exported, as on the CPU (the README would say it does).
  if (const std::string why = nvrtc_unavailable(); !why.empty()) {
    files["README.md"] += "\nNot compiled by LEGO Studio (" + why + "): no `.ptx` here.\n";
    return files;
  }
  WorkerClient worker(default_worker_path());
  const CudaCompiled c = cuda_resources_in_worker(worker, inst.source, {"sm_80"}, true);
  if (c.ptx.empty())
    throw LegoError("variant " + inst.variant + " does not compile (NVRTC, sm_80), so nothing was exported:\n" +
                    (c.resources.empty() || c.resources[0].log.empty() ? std::string("NVRTC gave no message") : c.resources[0].log));
  files[base + ".ptx"] = c.ptx;
  return files;
}

// A Triton variant: its Python as it was verified, whose launch function
// takes one tensor per project tensor (a flat buffer of its layout's size).
std::map<std::string, std::string> export_triton(const kernel::KernelSpec& spec, const kernel::Instance& inst) {
  std::string tensors, sizes;
  for (const auto& t : inst.tensors) {
    tensors += (tensors.empty() ? "" : ", ") + t.name;
    const char* type = t.type == kernel::ElementType::F16 ? "half" : kernel::c_type(t.type);
    sizes += fmt::format("- `{}` ({}, {}): {} elements, layout \"{}\": {}\n", t.name, kernel::to_string(t.role), type, t.elements,
                         t.layout_name, t.view_text);
  }
  const std::string base = spec.name;
  return {
      {base + ".py", inst.source},
      {"README.md", "# " + spec.name + " — variant " + inst.variant + "\n\n" + spec.description +
                        "\n\nExported by LEGO Studio: a Triton kernel and its launch function. `lego bench` verifies such variants under "
                        "Triton's interpreter (TRITON_INTERPRET=1) against the project's reference; this export ran nothing. On a GPU, "
                        "with PyTorch and Triton 3.6:\n\n"
                        "    from " +
                        base + " import launch\n    launch(" + tensors +
                        ")  # CUDA tensors, each a flat buffer in its layout\n\nThe tensors, in the launch function's order:\n\n" + sizes +
                        "\nA `half` tensor is `torch.float16`, `float` `torch.float32`.\n"}};
}

}  // namespace

// The exported example allocates its buffers 64-byte aligned, as the
// sweep's tensors are, so its timing is comparable with the sweep's.

// The JIT contracts a * b + c into an FMA (-ffp-contract=fast); the exported
// build must too. gcc in ISO mode (-std=c++17) keeps them apart: the kernel
// then rounds differently from what was verified, and templates written for
// FMAs (the softmax exp) run at a fraction of the measured speed.
std::string compiler_flags(const target::Target& t) {
  if (t.arch == target::Arch::AArch64) return (t.cpu == "generic" ? "-march=armv8-a" : "-mcpu=" + t.cpu) + " -ffp-contract=fast";
  std::string flags;
  for (const auto& f : target::clang_flags(t)) flags += (flags.empty() ? "" : " ") + f;
  return flags + " -ffp-contract=fast";
}

std::map<std::string, std::string> export_files(const kernel::KernelSpec& spec, const kernel::Instance& inst) {
  if (inst.backend == kernel::Backend::Cuda) return export_cuda(spec, inst);
  if (inst.backend == kernel::Backend::Triton) return export_triton(spec, inst);
  const target::Target target = target::resolve(inst.target);
  const std::string flags = compiler_flags(target);
  const bool here = cannot_run_here(target).empty();
  const std::string base = spec.name;
  const std::string& variant = inst.variant;
  std::string header = "// " + spec.name + ", variant " + variant + " (exported by LEGO Studio)\n#pragma once\n#include <cstdint>\n\n";
  std::string params, args;
  for (const auto& t : inst.tensors) {
    std::string extents;
    for (auto e : t.extents) extents += (extents.empty() ? "" : " x ") + std::to_string(e);
    header += fmt::format("// {} ({}, {}): {} {}, layout \"{}\":\n//   {}\n{}\n", t.name, kernel::to_string(t.role), kernel::c_type(t.type),
                          extents, kernel::c_type(t.type), t.layout_name, t.view_text, offset_function(inst, t, sym::Lang::C, "inline"));
    params +=
        (params.empty() ? "" : ", ") + std::string(t.role == kernel::Role::In ? "const " : "") + kernel::c_type(t.type) + "* " + t.name;
    args += (args.empty() ? "" : ", ") + t.name + ".data()";
  }
  const std::string prelude = sym::c_prelude(sym::Lang::C);
  header = prelude + header;
  header += "extern \"C\" void lego_kernel(" + params + ");\n";

  std::string example =
      "// Calls the exported kernel on filled buffers, prints a checksum of the first call's output and the median time of\n"
      "// repeated calls (what LEGO Studio's sweep reports).\n// Build: c++ -std=c++17 -O3 " +
      flags + " -fopenmp example.cpp " + base +
      ".cpp -o example\n#include <algorithm>\n#include <chrono>\n#include <cstdio>\n#include <new>\n#include <vector>\n\n#include \"" +
      base + ".hpp\"\n\n" + kAlignedAllocator + "\nint main() {\n";
  std::string sums;
  for (const auto& t : inst.tensors) {
    const bool half = t.type == kernel::ElementType::F16;  // its bits: the header's prelude converts them
    const std::string fill = example_fill(t);
    example += fmt::format("  std::vector<{0}, Aligned64<{0}>> {1}({2});\n  for (size_t k = 0; k < {1}.size(); ++k) {1}[k] = {3};\n",
                           kernel::c_type(t.type), t.name, t.elements, fill);
    if (t.role != kernel::Role::In)
      sums +=
          fmt::format("  double sum_{0} = 0;\n  for (auto v : {0}) sum_{0} += {1};\n  std::printf(\"checksum {0} = %.17g\\n\", sum_{0});\n",
                      t.name, half ? "lego_half_to_float(v)" : "v");
  }
  // The first call also touches the pages; the sweep times warm calls, so
  // the median of at least 5 calls over at least 0.5 s is comparable.
  example += "  using clock = std::chrono::steady_clock;\n  const auto first = clock::now();\n  lego_kernel(" + args + ");\n" +
             "  const double first_ms = std::chrono::duration<double, std::milli>(clock::now() - first).count();\n" + sums +
             "  std::vector<double> times;\n  const auto start = clock::now();\n"
             "  while (times.size() < 5 || (times.size() < 10000 && clock::now() - start < std::chrono::milliseconds(500))) {\n"
             "    const auto t0 = clock::now();\n    lego_kernel(" +
             args +
             ");\n    times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());\n  }\n"
             "  std::sort(times.begin(), times.end());\n"
             "  std::printf(\"first call %.4f ms; median %.4f ms over %zu calls\\n\", first_ms, times[times.size() / 2], times.size());\n"
             "  return 0;\n}\n";

  std::string source = inst.source;
  if (auto at = source.find("#line 1 "); at != std::string::npos) source.erase(at, source.find('\n', at) - at + 1);
  if (auto at = source.find(prelude); !prelude.empty() && at != std::string::npos) source.erase(at, prelude.size());  // the header has it
  source = "#include \"" + base + ".hpp\"\n" + source;

  std::map<std::string, std::string> files = {
      {base + ".cpp", source},
      {base + ".hpp", header},
      {"example.cpp", example},
      {"README.md",
       "# " + spec.name + " — variant " + variant + "\n\n" + spec.description + "\n\nExported by LEGO Studio for target " + target.name +
           " (" + target.level() + ": " + target.description +
           "). Self-contained C++17 with OpenMP; no LEGO Studio needed.\n\n"
           "    c++ -std=c++17 -O3 " +
           flags + " -fopenmp example.cpp " + base + ".cpp -o example && ./example\n\n" +
           "LEGO Studio timed it as Clang 15 compiles it (its JIT): `clang++-15` in place of `c++` reproduces those times. GCC "
           "builds the same code, and its vectorizer can make it slower (a wavefront kernel ran 1.2-1.3x longer built with g++ 12, "
           "a matmul's register tile 1.3x longer on an AVX-512 machine).\n\n" +
           (target.arch == target::Arch::AArch64
                ? "From an x86-64 machine (Debian: clang, libstdc++-12-dev-arm64-cross, libgomp1-arm64-cross, qemu-user): "
                  "`clang++ --target=aarch64-linux-gnu -std=c++17 -O3 " +
                      flags + " -fopenmp=libgomp example.cpp " + base +
                      ".cpp -o example`, then `qemu-aarch64 -L /usr/aarch64-linux-gnu ./example`.\n\n"
                : std::string()) +
           "`" + base +
           ".hpp` documents each tensor's layout and gives `<tensor>_offset(i, ..)`, the position of an element in its buffer." +
           (here ? " `" + base + ".s` is the assembly LEGO Studio's JIT produced for it (-O3 " + flags + ")." : std::string()) + "\n" +
           generation_notes(inst.notes)}};
  // What the compiler made of it (compiled here, never run here). A kernel
  // that does not compile is not exported: the user would find out later,
  // from a build that fails far from the tool that wrote it.
  // Code for another ISA cannot be compiled by this JIT: its build is the user's (the README says how).
  if (!here) return files;
  // Compiled by a worker, in a kernel's process, never linked: no code of
  // the project runs (a global constructor), and a compile that hangs (an
  // #include of a FIFO) ends at the time limit.
  WorkerClient worker(default_worker_path());
  const CompileReply compiled = compile_in_worker(worker, inst, 1);
  if (compiled.status == Status::Timeout)
    throw LegoError("variant " + variant + " does not compile: timed out after " + std::to_string(int(compile_time_limit())) +
                    " s, so nothing was exported");
  if (compiled.status != Status::Ok)
    throw LegoError("variant " + variant + " does not compile, so nothing was exported:\n" + compiled.message);
  files[base + ".s"] = compiled.assembly;
  return files;
}

}  // namespace lego::run
