#include "run/executor.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string_view>

#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "run/cuda_driver.hpp"
#include "run/cuda_emulator.hpp"
#include "run/kernel_process.hpp"
#include "run/libraries.hpp"
#include "run/nvrtc.hpp"
#include "run/protocol.hpp"

namespace lego::run {

using Json = nlohmann::json;

std::string entry_trampoline(const std::string& entry, const std::string& function, const std::vector<kernel::ElementType>& types) {
  std::string call;
  for (std::size_t k = 0; k < types.size(); ++k)
    call += (k ? ", " : "") + std::string("(") + kernel::c_type(types[k]) + "*)args[" + std::to_string(k) + "]";
  return "\nextern \"C\" void " + entry + "(void** args) { " + function + "(" + call + "); }\n";
}

namespace {

using Entry = void (*)(void**);

std::vector<kernel::ElementType> types_of(const std::vector<TensorArgument>& tensors) {
  std::vector<kernel::ElementType> types;
  for (const auto& t : tensors) types.push_back(t.type);
  return types;
}

std::vector<std::int64_t> layout_table(const TensorArgument& tensor, const Env& env) {
  const Plan plan = make_plan(parse_layout(tensor.layout), env);
  std::vector<std::int64_t> table(static_cast<std::size_t>(plan.size()));
  plan.apply_all(table.data());
  return table;
}

// How a process that stopped early ended, for a message.
std::string ended_early(KernelProcess& process, const char* what) {
  const std::string how = process.finish();
  return std::string(what) + "'s process ended without a result" + (how.empty() ? "" : " (" + how + ")");
}

Json job_for(const RunRequest& request, const std::string& source, const char* entry, const std::vector<const Buffer*>& buffers) {
  Json described = Json::array();
  for (std::size_t k = 0; k < buffers.size(); ++k)
    described.push_back({{"type", element_name(buffers[k]->type())}, {"count", buffers[k]->count()}, {"name", request.tensors.at(k).name}});
  return {{"source", source},
          {"scope", request.kernel},
          {"entry", entry},
          {"target", request.target},
          {"library", request.library},
          {"assembly", request.options.want_assembly},
          {"time", request.options.time},
          {"repetitions", request.options.repetitions},
          {"min_time", request.options.min_time_s},
          {"bytes", request.bytes},
          {"flops", request.flops},
          {"variant", request.variant},
          {"buffers", described}};
}

// A Triton variant's job: its Python, whose launch function the kernel's
// process calls under Triton's interpreter (run/python_kernel.hpp). The
// interpreter says nothing of a GPU's speed: it is never timed.
Json triton_job(const RunRequest& request, const std::vector<const Buffer*>& buffers) {
  Json job = job_for(request, "", "launch", buffers);
  job.erase("source");
  job["python_source"] = request.source;
  job["time"] = false;
  job["assembly"] = false;
  job["openmp"] = false;
  return job;
}

}  // namespace

namespace {

// The seed of this worker's inputs where the request names none: drawn
// once, at the first run, from the system's random source. Below 2^53, so
// that it prints, and reads back from JSON, as the same number everywhere.
std::uint64_t drawn_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t bits = 0;
    if (getrandom(&bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits))
      bits = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^ static_cast<std::uint64_t>(getpid());
    return (bits & ((std::uint64_t{1} << 53) - 1)) | 1;
  }();
  return seed;
}

}  // namespace

std::uint64_t input_seed(const RunRequest& request) { return request.options.seed != 0 ? request.options.seed : drawn_seed(); }

Executor::Reference& Executor::reference(const RunRequest& request, const std::map<std::string, Buffer>& inputs) {
  // Reference outputs depend on the reference (its source carries the
  // parameters it names), the tensors' extents and the seed, not on layouts
  // or on the parameters only the variant uses.
  Json key = {request.reference, input_seed(request), request.target};
  for (const auto& t : request.tensors) key.push_back({t.name, t.extents, kernel::c_type(t.type), kernel::to_string(t.role)});
  const std::string key_text = key.dump();
  if (reference_ && key_text == reference_key_) return *reference_;
  reference_.reset();
  // The reference is project code too: it runs in a process of its own, on
  // copies of the inputs, and what it leaves in the outputs is kept here.
  std::vector<Buffer> work;
  std::vector<const Buffer*> buffers;
  for (const auto& t : request.tensors) {
    Buffer b(t.type, t.elements(), Buffer::Sharing::Shared);
    if (t.role == kernel::Role::Out)
      poison(b);
    else
      std::memcpy(b.data(), inputs.at(t.name).data(), element_size(b.type()) * b.count());
    work.push_back(std::move(b));
  }
  for (const auto& b : work) buffers.push_back(&b);
  Json job = job_for(request, request.reference + entry_trampoline("lego_reference_entry", "lego_reference", types_of(request.tensors)),
                     "lego_reference_entry", buffers);
  job["assembly"] = false;
  job["time"] = false;
  job["library"] = "";
  KernelProcess process(job, buffers);
  std::optional<Json> event = process.next_event();
  if (kernel_event(event) == KernelEvent::CompileError)
    throw std::runtime_error("the reference does not compile:\n" + event_text(event, "message"));
  if (kernel_event(event) == KernelEvent::Compiled) event = process.next_event();
  if (kernel_event(event) == KernelEvent::Error) throw std::runtime_error("the reference: " + event_text(event, "message"));
  if (kernel_event(event) != KernelEvent::Called) throw std::runtime_error(ended_early(process, "the reference"));
  process.release();
  auto ref = std::make_unique<Reference>();
  std::size_t k = 0;
  for (const auto& t : request.tensors) {
    const Buffer& b = work[k++];
    if (t.role == kernel::Role::In) continue;
    Buffer kept(b.type(), b.count());
    std::memcpy(kept.data(), b.data(), element_size(b.type()) * b.count());
    ref->outputs.emplace(t.name, std::move(kept));
  }
  reference_key_ = key_text;
  reference_ = std::move(ref);
  return *reference_;
}

RunReply Executor::execute(const RunRequest& request, const Progress& progress) {
  RunReply result;
  result.id = request.id;
  result.kernel = request.kernel;
  result.variant = request.variant;
  auto stage = [&](const char* s) {
    if (progress) progress(s);
  };
  try {
    if (!kernel_zygote_running()) start_kernel_zygote();
    if (request.backend == kernel::Backend::Cuda)
      execute_cuda(request, result, stage);
    else
      execute_cpu(request, result, stage);
  } catch (const std::exception& e) {
    result.status = Status::Error;
    result.message = e.what();
  }
  return result;
}

// The variant runs in a process of its own (run/kernel_process.hpp): it
// compiles there, is called once, waits while its outputs are compared here,
// and is timed there. Its outputs and canaries are read here, in shared
// memory, once it has stopped or is gone.
void Executor::execute_cpu(const RunRequest& request, RunReply& result, const std::function<void(const char*)>& stage) {
  Prepared data = prepare(request, stage);
  if (request.options.verify) result.input_seed = input_seed(request);
  std::vector<const Buffer*> buffers;
  for (const auto& p : data.physical) buffers.push_back(&p);
  stage("compile");
  const bool triton = request.backend == kernel::Backend::Triton;
  KernelProcess process(triton ? triton_job(request, buffers)
                               : job_for(request, request.source + entry_trampoline("lego_entry", "lego_kernel", types_of(request.tensors)),
                                         "lego_entry", buffers),
                        buffers);
  std::optional<Json> event = process.next_event();
  if (kernel_event(event) == KernelEvent::CompileError) {
    result.status = Status::CompileError;
    result.message = "the kernel does not compile:\n" + event_text(event, "message");
    return;
  }
  if (kernel_event(event) == KernelEvent::Error) {
    result.status = Status::Error;
    result.message = event_text(event, "message");
    return;
  }
  if (kernel_event(event) != KernelEvent::Compiled) {
    result.status = Status::Crashed;
    result.message = ended_early(process, "the kernel");
    return;
  }
  if (const auto ms = event_number(event, "ms")) result.kernel_ms = *ms;
  if (request.options.want_assembly) result.assembly = event_text(event, "assembly");
  result.sandbox = event_text(event, "sandbox");
  if (!request.library.empty()) {  // asked in the process that loaded it; shown, never trusted
    result.library_kernel = event_text(event, "library_kernel");
    result.library_level = event_text(event, "library_level");
  }
  if (data.reference) stage("verify");
  event = process.next_event();
  if (kernel_event(event) == KernelEvent::Error) {
    result.status = Status::Error;
    result.message = event_text(event, "message");
    return;
  }
  if (kernel_event(event) == KernelEvent::Fault) {
    process.finish();
    result.verified = false;
    result.status = Status::OutOfBounds;
    result.message = event_text(event, "message");
    return;
  }
  if (kernel_event(event) != KernelEvent::Called) {
    const std::string how = ended_early(process, "the kernel");
    if (!check_overruns(request, data, result)) return;
    result.status = Status::Crashed;
    result.message = how;
    return;
  }
  // Compared while the process waits: it has no reference to copy from.
  if (data.reference && !check_outputs(request, data, result)) {
    process.finish();
    check_overruns(request, data, result);
    return;
  }
  if (request.options.time && !triton) {
    stage("time");
    process.go();
    event = process.next_event();
    if (kernel_event(event) == KernelEvent::Fault) {
      process.finish();
      result.verified = false;
      result.status = Status::OutOfBounds;
      result.message = event_text(event, "message") + " (while it was timed)";
      return;
    }
    if (kernel_event(event) != KernelEvent::Timed || !event->contains("benchmark")) {
      const std::string how = ended_early(process, "the kernel");
      if (!check_overruns(request, data, result)) return;
      result.status = Status::Crashed;
      result.message = how + " while it was timed";
      return;
    }
    try {
      result.benchmark = benchmark_report_from_json((*event)["benchmark"]);
    } catch (const LegoError& e) {
      process.finish();
      result.status = Status::Error;
      result.verified = false;  // the process that wrote this is not trusted with the rest
      result.message = std::string("the kernel's process reported its time in a form the worker does not read: ") + e.what();
      return;
    }
  }
  process.release();
  if (!check_overruns(request, data, result)) return;
  result.status = Status::Ok;
}

namespace {

// A variant whose buffers would take more than half the machine's memory is
// refused before anything is allocated: a project's sizes (or a range that
// reaches M = 531441) must not push the machine into swap or the OOM killer.
void require_memory_for(const std::vector<TensorArgument>& tensors, bool verify) {
  double need = 0;
  for (const auto& t : tensors) {
    const double bytes = static_cast<double>(kernel::element_bytes(t.type));
    // Verifying keeps the logical input, the reference output, the layout
    // table (8 bytes an element) and the packed copy.
    need += static_cast<double>(t.elements()) * (verify ? 3 * bytes + 8 : bytes);
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

Executor::Prepared Executor::prepare(const RunRequest& request, const std::function<void(const char*)>& stage) {
  const std::vector<TensorArgument>& tensors = request.tensors;
  require_memory_for(tensors, request.options.verify);
  Env env(request.parameters.begin(), request.parameters.end());
  Prepared data;
  const std::uint64_t seed = input_seed(request);
  if (!request.options.verify && request.backend == kernel::Backend::Cpu) {
    // Timing only (verified elsewhere, e.g. at a smaller size): what the
    // buffers hold does not change the work, so skip the layout tables and
    // the packing, which cost far more than the kernel at full size.
    stage("pack");
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      const Plan plan = make_plan(parse_layout(tensors[k].layout), env);
      Buffer b(tensors[k].type, plan.physical_size(), Buffer::Sharing::Shared);
      fill_random(b, seed * 1000003 + k);
      data.physical.push_back(std::move(b));
    }
    return data;
  }
  // The same seeded logical inputs feed the reference and the variant.
  std::map<std::string, Buffer> inputs;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    Buffer b(tensors[k].type, tensors[k].elements());
    fill_random(b, seed * 1000003 + k);
    inputs.emplace(tensors[k].name, std::move(b));
  }
  stage("reference");
  data.reference = request.options.verify ? &reference(request, inputs) : nullptr;
  stage("pack");
  for (const TensorArgument& t : tensors) {
    data.tables.push_back(layout_table(t, env));
    Buffer p = pack(inputs.at(t.name), data.tables.back(), Buffer::Sharing::Shared);
    if (t.role == kernel::Role::Out) poison(p);
    data.physical.push_back(std::move(p));
  }
  return data;
}

namespace {

// "B: 1000 of 4096 elements differ; the first, B[0][3], is 1.5 where the
// reference has 2 (largest relative error 0.5, tolerance 0.0001)".
std::string mismatch_summary(const std::vector<TensorArgument>& tensors, const std::vector<OutputCheck>& checks) {
  std::string said;
  for (const OutputCheck& check : checks) {
    if (!check.first_mismatch) continue;
    std::int64_t total = 1;
    std::vector<std::int64_t> extents;
    for (const TensorArgument& t : tensors)
      if (t.name == check.tensor) {
        extents = t.extents;
        total = t.elements();
      }
    // The position is row-major over the logical extents: as an index.
    std::int64_t position = check.first_mismatch->position;
    std::string index;
    for (std::size_t d = extents.size(); d-- > 0;) {
      const std::int64_t extent = extents[d] > 0 ? extents[d] : 1;
      index = "[" + std::to_string(position % extent) + "]" + index;
      position /= extent;
    }
    said += (said.empty() ? "" : "; ") +
            fmt::format(
                "{}: {} of {} elements differ; the first, {}{}, is {} where the reference has {} (largest relative error {:.3g}, "
                "tolerance {:.3g})",
                check.tensor, check.mismatches, total, check.tensor, index, check.first_mismatch->got, check.first_mismatch->want,
                check.max_error, check.tolerance);
  }
  return said;
}

}  // namespace

bool Executor::check_outputs(const RunRequest& request, const Prepared& data, RunReply& result) {
  const std::vector<TensorArgument>& tensors = request.tensors;
  bool ok = true;
  std::vector<OutputCheck> checks;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const TensorArgument& t = tensors[k];
    if (t.role == kernel::Role::In) continue;
    const Buffer got = unpack(data.physical[k], data.tables[k]);
    const double tol = request.tolerance > 0 ? request.tolerance : default_tolerance(got.type());
    const Comparison c = compare(got, data.reference->outputs.at(t.name), tol);
    OutputCheck check{t.name, c.mismatches, c.max_error, tol, std::nullopt};
    if (c.mismatches) {
      ok = false;
      check.first_mismatch = OutputCheck::Mismatch{c.first_mismatch, c.first_got, c.first_want};
    }
    checks.push_back(std::move(check));
  }
  result.verified = ok;
  if (!ok) {
    result.status = Status::Wrong;
    result.message = "the output differs from the reference: " + mismatch_summary(tensors, checks);
  }
  result.checks = std::move(checks);
  return ok;
}

// Writes outside a tensor, inputs included, are caught by its canaries even
// when every element inside is right.
bool Executor::check_overruns(const RunRequest& request, const Prepared& data, RunReply& result) {
  const std::vector<TensorArgument>& tensors = request.tensors;
  std::string overruns;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const Overrun o = data.physical[k].overrun();
    const std::string& name = tensors[k].name;
    // The farthest changed element, not a count: B[N + 1] alone changes
    // one element two out.
    const std::int64_t count = data.physical[k].count();
    if (o.after > 0)
      overruns += (overruns.empty() ? "" : "; ") + std::string("wrote past ") + name + "'s end, as far as " + name + "[" +
                  std::to_string(count + o.after - 1) + "] (" + std::to_string(o.after) + " element(s) out; " + name + " holds " +
                  std::to_string(count) + ")";
    if (o.before > 0)
      overruns += (overruns.empty() ? "" : "; ") + std::string("wrote before ") + name + "'s start, as far as " + name + "[-" +
                  std::to_string(o.before) + "]";
  }
  if (overruns.empty()) return true;
  result.verified = false;
  result.status = Status::OutOfBounds;
  result.message = overruns;
  return false;
}

namespace {

// Whether the source declares `extern __shared__` (or `__shared__ extern`):
// the words beside each __shared__, across any white space.
bool declares_dynamic_shared(const std::string& source) {
  constexpr std::string_view kShared = "__shared__", kExtern = "extern";
  for (std::size_t at = source.find(kShared); at != std::string::npos; at = source.find(kShared, at + 1)) {
    std::size_t before = at;
    while (before > 0 && std::isspace(static_cast<unsigned char>(source[before - 1]))) --before;
    if (before >= kExtern.size() && source.compare(before - kExtern.size(), kExtern.size(), kExtern) == 0) return true;
    std::size_t after = at + kShared.size();
    while (after < source.size() && std::isspace(static_cast<unsigned char>(source[after]))) ++after;
    if (source.compare(after, kExtern.size(), kExtern) == 0) return true;
  }
  return false;
}

}  // namespace

// What a wrong emulated kernel's message adds: the values the emulator's
// shared memory starts each block with (run/cuda_emulator.cpp).
constexpr const char* kPoisonedSharedHint =
    "; the emulator fills __shared__ arrays, as each block starts, with the 32-bit words 0xffffffff (NaN, -1), 0x7bff7bff "
    "(2.7e36; 65504 as halves) and 0xfbfffbff (their negatives) in turn: such values in an output suggest a read of shared "
    "memory that no thread of the block wrote";

// CUDA: NVRTC for the device (sm_80 without one), then the device runs and
// times it; without a GPU the kernel is verified by CPU emulation and the
// status says "no GPU".
void Executor::execute_cuda(const RunRequest& request, RunReply& result, const std::function<void(const char*)>& stage) {
  stage("compile");
  const std::string why_no_gpu = gpu_unavailable();
  const std::string arch = why_no_gpu.empty() ? gpu_info().arch() : "sm_80";
  const CudaCompileResult c = compile_cuda(request.source, arch);
  result.kernel_ms = c.ms;
  CudaResources& used = result.cuda.emplace();
  used.arch = arch;
  used.ok = c.registers >= 0;
  used.registers = c.registers;
  used.shared_bytes = c.shared_bytes;
  used.spill_stores = c.spill_stores;
  used.spill_loads = c.spill_loads;
  if (!c.ok) {
    result.status = Status::CompileError;
    result.message = "the kernel does not compile (NVRTC, " + arch + "):\n" + c.log;
    return;
  }
  if (request.options.want_assembly) result.assembly = c.ptx;
  const std::array<std::int64_t, 3>& grid = request.grid;
  const std::array<std::int64_t, 3>& block = request.block;
  Prepared data = prepare(request, stage);
  if (request.options.verify) result.input_seed = input_seed(request);
  if (why_no_gpu.empty()) {
    stage("verify");
    std::vector<DeviceBuffer> buffers;
    for (std::size_t k = 0; k < data.physical.size(); ++k) {
      const auto* p = static_cast<const char*>(data.physical[k].data());
      buffers.push_back({std::vector<char>(p, p + element_size(data.physical[k].type()) * data.physical[k].count()),
                         request.tensors[k].role != kernel::Role::In});
    }
    // Kernel launches are short and their times spread: at least 20, whatever the request asks.
    const GpuRun run = run_on_gpu(c.cubin, "lego_kernel", grid, block, buffers, std::max(20, request.options.repetitions));
    for (std::size_t k = 0; k < buffers.size(); ++k)
      if (buffers[k].output) std::memcpy(data.physical[k].data(), buffers[k].host.data(), buffers[k].host.size());
    if (data.reference && (!check_outputs(request, data, result) || !check_overruns(request, data, result))) return;
    const GpuInfo info = gpu_info();
    static const double copy_gbs = measure_copy_bandwidth();  // once per worker
    result.gpu = GpuTiming{
        info.name, run.times_ms, run.rotation, copy_gbs, copy_gbs, info.peak_bandwidth_gbs, info.peak_gflops_f32, info.peak_gflops_f32 / 2};
    BenchmarkEntry median;
    median.name = request.variant;
    median.run_type = "aggregate";
    median.aggregate_name = "median";
    median.real_time = run.median_ms;
    median.time_unit = "ms";
    median.repetitions = static_cast<std::int64_t>(run.times_ms.size());
    result.benchmark = BenchmarkReport{{{"device", info.name}, {"arch", arch}}, {median}};
    result.status = Status::Ok;
    return;
  }
  // A launch of [2147483647, 65535, 65535] blocks overflows 64 bits.
  std::int64_t total_threads = 1;
  bool too_many = false;
  for (const std::int64_t n : {grid[0], grid[1], grid[2], block[0], block[1], block[2]})
    too_many = too_many || n <= 0 || __builtin_mul_overflow(total_threads, n, &total_threads);
  if (data.reference && (too_many || total_threads > kMaxEmulatedThreads)) {
    result.status = Status::NoGpu;
    result.message = why_no_gpu + "; not verified: " + (too_many ? std::string("more than 2^63") : std::to_string(total_threads)) +
                     " threads are too many to emulate on the CPU (at most " + std::to_string(kMaxEmulatedThreads) +
                     "); verify at a smaller size (lego bench --verify-smaller, or --set)";
    return;
  }
  if (data.reference && request.flops > kMaxEmulatedFlops) {
    result.status = Status::NoGpu;
    result.message = why_no_gpu +
                     fmt::format("; not verified: {:.3g} flops are too many to emulate on the CPU (at most {:.3g}); ", request.flops,
                                 kMaxEmulatedFlops) +
                     "verify at a smaller size (lego bench --verify-smaller, or --set)";
    return;
  }
  if (data.reference) {
    // The emulation runs the project's code: in a process of its own, as a
    // CPU kernel does.
    stage("emulate");
    // The shim makes __shared__ static storage, which has a size; CUDA's
    // dynamic shared memory is sized at launch, which the emulator does not model.
    if (declares_dynamic_shared(request.source)) {
      result.status = Status::CompileError;
      result.message =
          "the kernel does not compile for CPU emulation: dynamic shared memory (extern __shared__) is not emulated; "
          "declare the __shared__ array with its size";
      return;
    }
    const std::int64_t threads = block[0] * block[1] * block[2];
    if (threads > 1024) throw LegoError("a block of " + std::to_string(threads) + " threads; CUDA allows at most 1024");
    const std::string launch = std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " + std::to_string(grid[2]) + ", " +
                               std::to_string(block[0]) + ", " + std::to_string(block[1]) + ", " + std::to_string(block[2]);
    const std::string source = emulation_source(request.source, types_of(request.tensors), atoms_) +
                               "\nextern \"C\" void lego_emulate_run(void** args) {\n  static const int64_t launch[6] = {" + launch +
                               "};\n  static char stacks[" + std::to_string(threads * kFiberStackBytes) +
                               "];\n  lego_emulate(args, launch, stacks, " + std::to_string(kFiberStackBytes) + ");\n}\n";
    std::vector<const Buffer*> buffers;
    for (const auto& p : data.physical) buffers.push_back(&p);
    Json job = job_for(request, source, "lego_emulate_run", buffers);
    job["openmp"] = false;
    job["assembly"] = false;
    job["time"] = false;
    job["target"] = "host";
    KernelProcess process(job, buffers);
    std::optional<Json> event = process.next_event();
    if (kernel_event(event) == KernelEvent::CompileError) {
      result.status = Status::CompileError;
      result.message = "the kernel does not compile for CPU emulation:\n" + event_text(event, "message");
      return;
    }
    if (kernel_event(event) == KernelEvent::Compiled) event = process.next_event();
    if (kernel_event(event) != KernelEvent::Called) {
      const std::string how =
          kernel_event(event) == KernelEvent::Error ? event_text(event, "message") : ended_early(process, "the emulated kernel");
      process.finish();
      if (!check_overruns(request, data, result)) return;
      result.status = Status::Crashed;
      result.message = how;
      return;
    }
    process.finish();
    if (!check_outputs(request, data, result)) {
      result.message += kPoisonedSharedHint;
      return;
    }
    if (!check_overruns(request, data, result)) return;
    result.verified_by = "CPU emulation";
  }
  result.status = Status::NoGpu;
  result.message = (data.reference ? "verified by CPU emulation of its threads and barriers; " : "") + why_no_gpu;
}

}  // namespace lego::run
