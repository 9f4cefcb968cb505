#include "run/executor.hpp"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "run/cuda_driver.hpp"
#include "run/cuda_emulator.hpp"
#include "run/libraries.hpp"
#include "run/nvrtc.hpp"

namespace lego::run {

using Json = nlohmann::json;

Json make_request(const kernel::Instance& instance, const RunOptions& options, std::int64_t id) {
  Json tensors = Json::array();
  for (const auto& t : instance.tensors)
    tensors.push_back({{"name", t.name},
                       {"type", kernel::c_type(t.type)},
                       {"role", kernel::to_string(t.role)},
                       {"extents", t.extents},
                       {"layout", t.view_text}});
  Json parameters = Json::object();
  for (const auto& [k, v] : instance.parameters) parameters[k] = v;
  return {{"id", id},
          {"kind", "run"},
          {"kernel", instance.kernel},
          {"variant", instance.variant},
          {"source", instance.source},
          {"reference", instance.reference},
          {"tensors", tensors},
          {"parameters", parameters},
          {"flops", instance.flops},
          {"bytes", instance.bytes},
          {"tolerance", instance.tolerance},
          {"verify", options.verify},
          {"time", options.time},
          {"assembly", options.want_assembly},
          {"repetitions", options.repetitions},
          {"backend", instance.backend},
          {"grid", instance.grid},
          {"block", instance.block},
          {"min_time", options.min_time_s},
          {"seed", options.seed},
          {"library", instance.library},
          {"target", instance.target}};
}

std::string entry_trampoline(const std::string& entry, const std::string& function, const Json& tensors) {
  std::string call;
  for (std::size_t k = 0; k < tensors.size(); ++k)
    call += (k ? ", " : "") + std::string("(") + tensors[k]["type"].get<std::string>() + "*)args[" + std::to_string(k) + "]";
  return "\nextern \"C\" void " + entry + "(void** args) { " + function + "(" + call + "); }\n";
}

namespace {

using Entry = void (*)(void**);

std::vector<std::int64_t> layout_table(const Json& tensor, const Env& env) {
  const Plan plan = make_plan(parse_layout(tensor["layout"].get<std::string>()), env);
  std::vector<std::int64_t> table(static_cast<std::size_t>(plan.size()));
  plan.apply_all(table.data());
  return table;
}

std::int64_t elements(const Json& tensor) {
  std::int64_t n = 1;
  for (const auto& e : tensor["extents"]) n *= e.get<std::int64_t>();
  return n;
}

std::unique_ptr<JitModule> compile_or_report(const std::string& source, bool want_assembly, Json& result, const char* what,
                                             const std::string& library = "", const std::string& target = "host") {
  CompileOptions options;
  options.want_assembly = want_assembly;
  options.library = library;
  options.target = target::resolve(target);
  CompileResult c = compile_cpp(source, options);
  result[std::string(what) + "_ms"] = c.ms;
  if (!c.module) {
    result["status"] = "compile-error";
    result["message"] = std::string(what) + " does not compile:\n" + c.diagnostics;
  }
  return std::move(c.module);
}

// Google Benchmark times the call; its JSON report comes back whole.
Json time_kernel(Entry entry, void** args, const Json& request) {
  const double bytes = request["bytes"].get<double>(), flops = request["flops"].get<double>();
  auto* b = benchmark::RegisterBenchmark(request["variant"].get<std::string>().c_str(), [=](benchmark::State& state) {
    for (auto _ : state) entry(args);
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
    if (flops > 0) state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  });
  b->Repetitions(request["repetitions"].get<int>())
      ->MinTime(request["min_time"].get<double>())
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  std::ostringstream out, err;
  benchmark::JSONReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  return Json::parse(out.str());
}

}  // namespace

Executor::Reference& Executor::reference(const Json& request, const std::map<std::string, Buffer>& inputs) {
  // Reference outputs depend on the reference, the tensors' extents and the seed, not on layouts.
  Json key = {request["reference"], request["parameters"], request["seed"]};
  for (const auto& t : request["tensors"]) key.push_back({t["name"], t["extents"], t["type"], t["role"]});
  const std::string key_text = key.dump();
  if (reference_ && key_text == reference_key_) return *reference_;
  reference_.reset();
  auto ref = std::make_unique<Reference>();
  Json scratch;
  ref->module = compile_or_report(
      request["reference"].get<std::string>() + entry_trampoline("lego_reference_entry", "lego_reference", request["tensors"]), false,
      scratch, "the reference");
  if (!ref->module) throw std::runtime_error(scratch["message"].get<std::string>());
  auto* entry = reinterpret_cast<Entry>(ref->module->lookup("lego_reference_entry"));
  std::vector<void*> args;
  std::map<std::string, Buffer> work;
  for (const auto& t : request["tensors"]) {
    const std::string name = t["name"];
    Buffer b(element_from_name(t["type"]), elements(t));
    if (t["role"] == "out")
      poison(b);
    else
      std::memcpy(b.data(), inputs.at(name).data(), element_size(b.type()) * b.count());
    args.push_back(b.data());
    work.emplace(name, std::move(b));
  }
  entry(args.data());
  for (const auto& t : request["tensors"])
    if (t["role"] != "in") ref->outputs.emplace(t["name"].get<std::string>(), std::move(work.at(t["name"].get<std::string>())));
  reference_key_ = key_text;
  reference_ = std::move(ref);
  return *reference_;
}

Json Executor::execute(const Json& request, const Progress& progress) {
  Json result = {{"id", request.value("id", 0)}, {"kernel", request.value("kernel", "")}, {"variant", request.value("variant", "")}};
  auto stage = [&](const char* s) {
    if (progress) progress(s);
  };
  try {
    if (request.value("backend", "cpu") == "cuda") {
      execute_cuda(request, result, stage);
      return result;
    }
    stage("compile");
    const Json& tensors = request.at("tensors");
    auto module = compile_or_report(request.at("source").get<std::string>() + entry_trampoline("lego_entry", "lego_kernel", tensors),
                                    request.value("assembly", false), result, "the kernel", request.value("library", ""),
                                    request.value("target", "host"));
    if (!module) return result;
    if (request.value("assembly", false)) result["assembly"] = module->assembly();
    if (!request.value("library", "").empty()) {
      result["library_kernel"] = library_kernel(request.value("library", ""));
      result["library_level"] = library_level(request.value("library", ""));
    }
    auto* entry = reinterpret_cast<Entry>(module->lookup("lego_entry"));
    if (!entry) {
      result["status"] = "error";
      result["message"] = "the kernel defines no lego_kernel function";
      return result;
    }
    Prepared data = prepare(request, stage);
    std::vector<void*> args;
    for (auto& p : data.physical) args.push_back(p.data());
    if (data.reference) {
      stage("verify");
      entry(args.data());
      if (!check_outputs(request, data, result)) return result;
    }
    if (request.value("time", true)) {
      stage("time");
      result["benchmark"] = time_kernel(entry, args.data(), request);
    }
    result["status"] = "ok";
  } catch (const std::exception& e) {
    result["status"] = "error";
    result["message"] = e.what();
  }
  return result;
}

namespace {

// A variant whose buffers would take more than half the machine's memory is
// refused before anything is allocated: a project's sizes (or a range that
// reaches M = 531441) must not push the machine into swap or the OOM killer.
void require_memory_for(const Json& tensors, bool verify) {
  double need = 0;
  for (const auto& t : tensors) {
    const double bytes = (t["type"] == "float" || t["type"] == "int32_t") ? 4 : 8;
    // Verifying keeps the logical input, the reference output, the layout
    // table (8 bytes an element) and the packed copy.
    need += static_cast<double>(elements(t)) * (verify ? 3 * bytes + 8 : bytes);
  }
  const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (memory > 0 && need > memory / 2) {
    const double gib = 1024.0 * 1024.0 * 1024.0;
    char text[320];
    std::snprintf(text, sizeof text,
                  "the buffers of this variant need %.1f GiB%s; this machine has %.1f GiB and a variant may use half; "
                  "run it at a smaller size (--set, or the project's verify_at)",
                  need / gib, verify ? " (inputs, reference outputs, layout tables and packed copies)" : "", memory / gib);
    throw LegoError(text);
  }
}

}  // namespace

Executor::Prepared Executor::prepare(const Json& request, const std::function<void(const char*)>& stage) {
  const Json& tensors = request.at("tensors");
  require_memory_for(tensors, request.value("verify", true));
  Env env;
  for (const auto& [k, v] : request.at("parameters").items()) env[k] = v.get<std::int64_t>();
  Prepared data;
  const std::uint64_t seed = request.value("seed", std::uint64_t{1});
  if (!request.value("verify", true) && request.value("backend", "cpu") == "cpu") {
    // Timing only (verified elsewhere, e.g. at a smaller size): what the
    // buffers hold does not change the work, so skip the layout tables and
    // the packing, which cost far more than the kernel at full size.
    stage("pack");
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      const Plan plan = make_plan(parse_layout(tensors[k]["layout"].get<std::string>()), env);
      Buffer b(element_from_name(tensors[k]["type"]), plan.physical_size());
      fill_random(b, seed * 1000003 + k);
      data.physical.push_back(std::move(b));
    }
    return data;
  }
  // The same seeded logical inputs feed the reference and the variant.
  std::map<std::string, Buffer> inputs;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    Buffer b(element_from_name(tensors[k]["type"]), elements(tensors[k]));
    fill_random(b, seed * 1000003 + k);
    inputs.emplace(tensors[k]["name"].get<std::string>(), std::move(b));
  }
  stage("reference");
  data.reference = request.value("verify", true) ? &reference(request, inputs) : nullptr;
  stage("pack");
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const Json& t = tensors[k];
    data.tables.push_back(layout_table(t, env));
    Buffer p = pack(inputs.at(t["name"].get<std::string>()), data.tables.back());
    if (t["role"] == "out") poison(p);
    data.physical.push_back(std::move(p));
  }
  return data;
}

bool Executor::check_outputs(const Json& request, const Prepared& data, Json& result) {
  const Json& tensors = request.at("tensors");
  bool ok = true;
  Json checks = Json::array();
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const Json& t = tensors[k];
    if (t["role"] == "in") continue;
    const Buffer got = unpack(data.physical[k], data.tables[k]);
    const double tol = request.value("tolerance", 0.0) > 0 ? request["tolerance"].get<double>() : default_tolerance(got.type());
    const Comparison c = compare(got, data.reference->outputs.at(t["name"].get<std::string>()), tol);
    Json check = {{"tensor", t["name"]}, {"mismatches", c.mismatches}, {"max_error", c.max_error}, {"tolerance", tol}};
    if (c.mismatches) {
      ok = false;
      check["first_mismatch"] = {{"position", c.first_mismatch}, {"got", c.first_got}, {"want", c.first_want}};
    }
    checks.push_back(check);
  }
  result["verified"] = ok;
  result["checks"] = checks;
  if (!ok) {
    result["status"] = "wrong";
    result["message"] = "the output differs from the reference";
  }
  // Writes outside a tensor, inputs included, are caught by its canaries
  // even when every element inside is right.
  std::string overruns;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const Overrun o = data.physical[k].overrun();
    const std::string name = tensors[k]["name"].get<std::string>();
    if (o.after > 0)
      overruns += (overruns.empty() ? "" : "; ") + std::string("wrote ") + std::to_string(o.after) + " element(s) past " + name + "'s end";
    if (o.before > 0)
      overruns +=
          (overruns.empty() ? "" : "; ") + std::string("wrote ") + std::to_string(o.before) + " element(s) before " + name + "'s start";
  }
  if (!overruns.empty()) {
    ok = false;
    result["verified"] = false;
    result["status"] = "out of bounds";
    result["message"] = overruns;
  }
  return ok;
}

// CUDA: NVRTC for the device (sm_80 without one), then the device runs and
// times it; without a GPU the kernel is verified by CPU emulation and the
// status says "no GPU".
void Executor::execute_cuda(const Json& request, Json& result, const std::function<void(const char*)>& stage) {
  stage("compile");
  const std::string why_no_gpu = gpu_unavailable();
  const std::string arch = why_no_gpu.empty() ? gpu_info().arch() : "sm_80";
  const CudaCompileResult c = compile_cuda(request.at("source").get<std::string>(), arch);
  result["kernel_ms"] = c.ms;
  result["cuda"] = {{"arch", arch},
                    {"registers", c.registers},
                    {"shared_bytes", c.shared_bytes},
                    {"spill_stores", c.spill_stores},
                    {"spill_loads", c.spill_loads}};
  if (!c.ok) {
    result["status"] = "compile-error";
    result["message"] = "the kernel does not compile (NVRTC, " + arch + "):\n" + c.log;
    return;
  }
  if (request.value("assembly", false)) result["assembly"] = c.ptx;
  const std::array<std::int64_t, 3> grid = request.at("grid").get<std::array<std::int64_t, 3>>();
  const std::array<std::int64_t, 3> block = request.at("block").get<std::array<std::int64_t, 3>>();
  Prepared data = prepare(request, stage);
  if (why_no_gpu.empty()) {
    stage("verify");
    std::vector<DeviceBuffer> buffers;
    for (std::size_t k = 0; k < data.physical.size(); ++k) {
      const auto* p = static_cast<const char*>(data.physical[k].data());
      buffers.push_back({std::vector<char>(p, p + element_size(data.physical[k].type()) * data.physical[k].count()),
                         request["tensors"][k]["role"] != "in"});
    }
    const GpuRun run = run_on_gpu(c.cubin, "lego_kernel", grid, block, buffers, std::max(20, request.value("repetitions", 20)));
    for (std::size_t k = 0; k < buffers.size(); ++k)
      if (buffers[k].output) std::memcpy(data.physical[k].data(), buffers[k].host.data(), buffers[k].host.size());
    if (data.reference && !check_outputs(request, data, result)) return;
    const GpuInfo info = gpu_info();
    static const double copy_gbs = measure_copy_bandwidth();  // once per worker
    result["gpu"] = {{"device", info.name},
                     {"times_ms", run.times_ms},
                     {"rotation", run.rotation},
                     {"copy_gbs", copy_gbs},
                     {"triad_gbs", copy_gbs},
                     {"peak_bandwidth_gbs", info.peak_bandwidth_gbs},
                     {"peak_gflops_f32", info.peak_gflops_f32},
                     {"peak_gflops_f64", info.peak_gflops_f32 / 2}};
    result["benchmark"] = {{"context", {{"device", info.name}, {"arch", arch}}},
                           {"benchmarks",
                            {{{"name", request.value("variant", "")},
                              {"run_type", "aggregate"},
                              {"aggregate_name", "median"},
                              {"real_time", run.median_ms},
                              {"time_unit", "ms"},
                              {"repetitions", run.times_ms.size()}}}}};
    result["status"] = "ok";
    return;
  }
  const std::int64_t total_threads = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
  if (data.reference && total_threads > kMaxEmulatedThreads) {
    result["status"] = "no GPU";
    result["message"] = why_no_gpu + "; not verified: " + std::to_string(total_threads) +
                        " threads are too many to emulate on the CPU (at most " + std::to_string(kMaxEmulatedThreads) +
                        "); verify at a smaller size (lego bench --verify-smaller, or --set)";
    return;
  }
  if (data.reference) {
    stage("emulate");
    CompileOptions options;
    options.openmp = false;
    options.want_assembly = false;
    CompileResult e = compile_cpp(emulation_source(request.at("source").get<std::string>(), request.at("tensors")), options);
    if (!e.module) {
      result["status"] = "compile-error";
      result["message"] = "the kernel does not compile for CPU emulation:\n" + e.diagnostics;
      return;
    }
    using Emulate = void (*)(void**, const std::int64_t*, char*, std::int64_t);
    auto* emulate = reinterpret_cast<Emulate>(e.module->lookup("lego_emulate"));
    const std::int64_t threads = block[0] * block[1] * block[2];
    if (threads > 1024) throw LegoError("a block of " + std::to_string(threads) + " threads; CUDA allows at most 1024");
    std::vector<char> stacks(static_cast<std::size_t>(threads * kFiberStackBytes));
    const std::int64_t launch[6] = {grid[0], grid[1], grid[2], block[0], block[1], block[2]};
    std::vector<void*> args;
    for (auto& p : data.physical) args.push_back(p.data());
    emulate(args.data(), launch, stacks.data(), kFiberStackBytes);
    if (!check_outputs(request, data, result)) return;
    result["verified_by"] = "CPU emulation";
  }
  result["status"] = "no GPU";
  result["message"] = (data.reference ? "verified by CPU emulation of its threads and barriers; " : "") + why_no_gpu;
}

}  // namespace lego::run
