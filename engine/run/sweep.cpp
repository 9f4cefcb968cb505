#include "run/sweep.hpp"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <string_view>

#include "kernel/baseline.hpp"
#include "kernel/bounded_json.hpp"
#include "kernel/spec.hpp"
#include "run/analyze.hpp"
#include "run/bench_harness.hpp"
#include "run/cache_seal.hpp"
#include "run/ceilings.hpp"
#include "run/emulation_sizes.hpp"
#include "run/jit.hpp"
#include "run/libraries.hpp"
#include "run/nvrtc.hpp"
#include "run/protocol.hpp"
#include "run/python_environment.hpp"
#include "run/quiet_gap.hpp"
#include "run/worker_client.hpp"
#include "run/worker_transport.hpp"
#include "target/target.hpp"

namespace lego::run {

using Json = nlohmann::json;
namespace fs = std::filesystem;

// A reader never sees half a file: write beside it, then rename over it.
namespace {

fs::path cache_file(const std::string& target) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const fs::path base = xdg && *xdg ? fs::path(xdg) : home ? fs::path(home) / ".cache" : fs::temp_directory_path();
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  // Per target: x86-64-v3 code on an AVX-512 machine has its own roofs.
  return base / "lego-studio" / (std::string("ceilings-") + host + (target == "host" ? "" : "-" + target) + ".json");
}

// Only a regular file of at most kMostCachedBytes, opened without following
// a link or waiting on a FIFO: a cache folder others can write to may hold
// a FIFO, a link to /dev/zero or a huge file where a result should be, and
// reading it must neither hang nor fill the memory.
constexpr std::size_t kMostCachedBytes = std::size_t{64} << 20;
std::string read_cache_text(const fs::path& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  std::string text;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= kMostCachedBytes) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = read(fd, text.data() + got, text.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
  }
  close(fd);
  return text;
}

// The seal covers the file's name with its text: the name is the cache key
// (a code and its run options, a machine), so a sealed file moved or copied
// under another key (one code's time onto another's) does not open there.
std::string named_text(const fs::path& file, const std::string& text) { return file.filename().string() + "\n" + text; }

// A cache file as JSON: discarded when it is missing, unreadable, not
// sealed with this user's key (run/cache_seal.hpp) under its own name, or not JSON.
Json read_sealed(const fs::path& file) {
  if (!private_folder_problem(file.parent_path()).empty()) return Json(Json::value_t::discarded);
  const std::string text = read_cache_text(file);
  const std::optional<std::string> opened = text.empty() ? std::nullopt : unseal(cache_file("host").parent_path(), text);
  const std::string name = named_text(file, "");
  if (!opened || opened->compare(0, name.size(), name) != 0) return Json(Json::value_t::discarded);
  return kernel::parse_json_or_discarded(std::string_view(*opened).substr(name.size()));
}

// Writes it sealed; a cache that cannot be written only costs time. Why it
// was not written, or "" once it is.
std::string write_sealed(const fs::path& file, const std::string& text) {
  try {
    if (std::string problem = private_folder_problem(file.parent_path()); !problem.empty()) return problem;
    const std::optional<std::string> sealed = seal(cache_file("host").parent_path(), named_text(file, text));
    if (!sealed) return "no key to seal it with";
    write_own_file_atomically(file, *sealed);
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

// Measured once per machine (and thread count) and cached; measured again
// when the cached figures are more than a week old, so a measurement taken
// on a busy day does not bound every later % of roof.
Roof machine_roof(bool refresh, const std::function<void(const std::string&)>& note, const std::string& target) {
  const fs::path file = cache_file(target);
  const long threads = sysconf(_SC_NPROCESSORS_ONLN);
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  constexpr std::int64_t kWeek = 7 * 24 * 3600;
  std::string why = "once per machine and target";
  if (!refresh) {
    const Json cached = read_sealed(file);
    std::error_code ec;
    if (cached.is_discarded() && fs::exists(file, ec)) why = "the cached file failed its seal or could not be read";
    if (!cached.is_discarded() && cached.is_object() && cached.contains("copy_gbs")) {
      Roof roof = roof_from_json(cached);
      // Older files lack the target's FMA kernel, the caches' probe, the streamed runs' or the lines written in parts.
      const bool complete = roof.fma_chains > 0 && cached.contains("resident_mib") && cached.contains("partial_line_cost");
      why = roof.threads != threads ? fmt::format("the cached figures are of {} threads, this machine has {}", roof.threads, threads)
                                    : "the cached figures lack a newer measurement (lines in parts)";
      if (roof.threads == threads && complete) {
        const bool busy = roof.cpu_share > 0 && roof.cpu_share < kBusyShare;
        if (now - roof.measured_unix <= (busy ? 600 : kWeek)) {
          roof.cached_file = file.string();
          return roof;
        }
        why = busy ? "the cached figures were measured on a busy machine" : "the cached figures are more than a week old";
      }
    }
  }
  if (refresh) why = "asked for";
  if (note)
    note("measuring the machine's ceilings for target " + target + " (STREAM copy/triad, peak FMA, best of several runs; " + why + ")...");
  WorkerClient worker(default_worker_path());
  const Json r = WorkerTransport::call(worker, {{"id", 1}, {"kind", "ceilings"}, {"target", target}}, 300);
  if (status_from_text(r.value("status", "")) != Status::Ok) throw LegoError("measuring ceilings failed: " + r.value("message", r.dump()));
  Roof roof = roof_from_json(r);
  roof.measured_unix = now;
  roof.measured_at = fmt::format("{:%Y-%m-%d %H:%M} UTC", fmt::gmtime(static_cast<std::time_t>(now)));
  if (roof.cpu_share > 0 && roof.cpu_share < kBusyShare && note)
    // Other work ran on the cores: every figure is low. Kept for ten minutes only (see above).
    note(
        fmt::format("the machine was busy: the ceiling kernels had the cores {:.0f}% of the time, so these roofs are low; they are "
                    "measured again after ten minutes (or now: lego ceilings --refresh, on a quiet machine)",
                    100 * roof.cpu_share));
  // Said where the file would be: "cached in" a folder that refused it misled (issue 61's review).
  const std::string not_written = write_sealed(file, roof_json(roof).dump(2) + "\n");
  roof.cached_file = not_written.empty() ? file.string() : "(not cached: " + not_written + ")";
  return roof;
}

// Percent of the roof that bounds this kernel: copy bandwidth for a
// kernel without FLOPs, else min(peak, intensity x triad bandwidth).
double arithmetic_intensity(const kernel::Instance& inst) {
  return inst.bytes > 0 ? static_cast<double>(inst.flops) / static_cast<double>(inst.bytes) : 0;
}

namespace {

// The peak the kernel's arithmetic runs against: fp64 when its first tensor
// is, else fp32's (a CPU kernel computes on halves as floats).
bool computes_in_f64(const kernel::Instance& inst) { return !inst.tensors.empty() && inst.tensors[0].type == kernel::ElementType::F64; }

double peak_gflops(const kernel::Instance& inst, const Roof& roof) {
  return computes_in_f64(inst) ? roof.peak_gflops_f64 : roof.peak_gflops_f32;
}

}  // namespace

double percent_of_roof(const kernel::Instance& inst, double ms, const Roof& roof) {
  if (ms <= 0) return 0;
  const double s = ms / 1e3;
  if (inst.flops == 0) return roof.copy_gbs > 0 ? 100.0 * (static_cast<double>(inst.bytes) / s / 1e9) / roof.copy_gbs : 0;
  const double peak = peak_gflops(inst, roof);
  const double intensity = inst.bytes > 0 ? arithmetic_intensity(inst) : 1e30;
  // A roof the machine did not report (a driver without clock rates) bounds nothing.
  const double bound = std::min(peak > 0 ? peak : 1e300, intensity * roof.triad_gbs);
  return bound > 0 && bound < 1e300 ? 100.0 * (static_cast<double>(inst.flops) / s / 1e9) / bound : 0;
}

double believable_gflops(const kernel::Instance& inst, const Roof& roof, bool on_gpu) {
  const double measured = 1.5 * peak_gflops(inst, roof);
  if (on_gpu) return measured;
  const std::optional<target::Target> target = target::by_name(inst.target);
  if (!target) return measured;
  const bool f64 = computes_in_f64(inst);
  // Two FLOPs a lane and pipe whether or not the target has FMA: a core
  // without it (x86-64-v2 code) still issues a multiply and an add a cycle
  // on separate pipes. The threads that ran, not the cores (hyperthreads
  // share pipes); the cores where the roof does not say.
  const double lanes = std::min(target->fma_bytes, target->vector_bytes) / (f64 ? 8.0 : 4.0);
  const double per_cycle = target->fma_pipes * lanes * 2;
  const double bound = per_cycle * 6.0 * (roof.threads > 0 ? roof.threads : std::max(target->cores, 1));
  return measured > 0 ? std::max(measured, bound) : 0;
}

namespace {

// A variant's source without the line that names the variant (a C++ or
// CUDA source's first, a Triton source's trailer): two variants of one code
// share everything else.
std::string past_header(const std::string& source) {
  constexpr std::string_view kPythonHeader = "\n# generated by LEGO Studio: ";
  if (const auto at = source.rfind(kPythonHeader); at != std::string::npos && !source.starts_with("//")) {
    const auto end = source.find('\n', at + 1);
    return source.substr(0, at + 1) + (end == std::string::npos ? "" : source.substr(end + 1));
  }
  return source.substr(source.find('\n') + 1);
}

}  // namespace

// The code that differs between variants: the source past its header, and the layouts.
std::string code_key(const kernel::Instance& inst) {
  std::string key = past_header(inst.source);
  for (const auto& t : inst.tensors) key += "\n" + t.view_text;
  if (inst.backend == kernel::Backend::Cpu) key += "\ntarget " + inst.target;  // one source, other machine code
  return key;
}

namespace {

// The parameters with verify_at's smaller sizes, when they are smaller and
// still meet the constraints.
std::optional<Env> verification_sizes(const kernel::KernelSpec& spec, const Env& parameters) {
  if (spec.verify_at.empty() || spec.backend == kernel::Backend::Cuda) return std::nullopt;
  Env small = parameters;
  bool smaller = false;
  for (const auto& [name, value] : spec.verify_at) {
    auto it = small.find(name);
    if (it == small.end() || it->second <= value) continue;
    it->second = value;
    smaller = true;
  }
  if (!smaller || !constraints_hold(spec, small)) return std::nullopt;
  return small;
}

}  // namespace

std::optional<kernel::Instance> verification_instance(const kernel::KernelSpec& spec, const kernel::Variant& variant,
                                                      bool smaller_for_emulation, const target::Target& target) {
  std::optional<Env> sizes = verification_sizes(spec, variant.parameters);
  if (!sizes && smaller_for_emulation) sizes = emulation_sizes(spec, variant.parameters);
  if (!sizes) return std::nullopt;
  kernel::Variant small = variant;
  small.parameters = *sizes;
  try {
    return kernel::instantiate(spec, small, sym::Lang::C, {.target = target});
  } catch (const LegoError&) {
    return std::nullopt;  // a layout that does not fit the smaller size: verify at full size
  }
}

std::optional<kernel::Instance> verification_instance(const kernel::KernelSpec& spec, const kernel::Baseline& baseline,
                                                      const Env& parameters) {
  const std::optional<Env> sizes = verification_sizes(spec, parameters);
  if (!sizes || !baseline.verify) return std::nullopt;
  return kernel::instantiate_baseline(spec, baseline, *sizes);
}

fs::path results_cache_dir() { return cache_file("host").parent_path() / "results"; }

std::string results_cache_problem() {
  std::string problem = private_folder_problem(cache_file("host").parent_path());
  return problem.empty() ? private_folder_problem(results_cache_dir()) : problem;
}

namespace {

// A library baseline's speed depends on which of its kernels it runs: the
// OPENBLAS_CORETYPE its worker gets (library_environment: the target's
// core, or for the host the shell's when it runs the host's ISA level).
std::string library_environment_key(const kernel::Instance& inst) {
  if (inst.library.empty()) return {};
  std::string key;
  const std::optional<target::Target> t = target::by_name(inst.target);
  std::map<std::string, std::string> chosen;
  if (t)
    for (const auto& [name, value] : library_environment(inst.library, *t)) chosen[name] = value;
  for (const char* name : {"OPENBLAS_CORETYPE", "BLIS_ARCH_TYPE"}) {
    const char* shell = std::getenv(name);
    const auto it = chosen.find(name);
    const std::string value = it != chosen.end() ? it->second : shell ? shell : "";
    if (!value.empty()) key += std::string("\n") + name + "=" + value;
  }
  return key;
}

// A cached reply, or nullopt when the file is missing, not sealed with this
// user's key, or not a reply of this version's form (an older version's
// file is run again, never trusted to be read).
std::optional<RunReply> cached_reply(const fs::path& file) {
  const Json hit = read_sealed(file);
  if (hit.is_discarded()) return std::nullopt;
  try {
    return run_reply_from_json(hit, file.string());
  } catch (const LegoError&) {
    return std::nullopt;
  }
}

// What the worker (or the client, for a worker that died) answered, typed;
// an answer that is not a reply is an error that names the field.
RunReply reply_of(const Json& answer) {
  try {
    return run_reply_from_json(answer);
  } catch (const LegoError& e) {
    RunReply r;
    r.status = Status::Error;
    r.message = std::string("protocol error: the worker's reply does not read: ") + e.what();
    return r;
  }
}

// Raised when what the worker reports for the same code changes (its
// checks, its messages), so that a new version does not show an old one's.
// One file per result, named by a hash of everything that decides it: the
// requests the worker gets (below), the machine and its thread count.
constexpr const char* kResultsVersion = "results 4: keyed by the requests (run/sweep.cpp, verdict_key)";

// The flags the JIT compiles `inst` with: a change of them (host AVX-512
// code told to use 512-bit vectors) is another code, whose old timings must
// not be served.
std::string compile_flags_key(const kernel::Instance& inst) {
  if (inst.backend != kernel::Backend::Cpu) return "";
  std::string flags;
  try {
    for (const std::string& f : target::clang_flags(target::resolve(inst.target))) flags += " " + f;
  } catch (const LegoError&) {
    flags = " (unknown target)";
  }
  return flags;
}

// A Triton verdict is the interpreter's: another Triton or numpy may reach another.
std::string interpreter_key(const kernel::Instance& inst) {
  if (inst.backend != kernel::Backend::Triton) return "";
  const PythonEnvironment& env = python_environment();
  return "triton " + env.triton_version + ", numpy " + env.numpy_version + ", " + env.library;
}

// The request the worker gets for `inst`, as the cache key holds it: all
// it is checked and timed by (the code, the reference, the tensors' types,
// extents and layouts, the tolerance, the launch shape, the input seed or
// that the worker draws one, the timing options), less what names it
// (its id, kernel and variant names, the source's first line, the
// variant's name), so that two variants of one code share a result, and
// less the assembly, which a hit without it fetches (run_variant).
Json request_key(const kernel::Instance& inst, const RunOptions& options) {
  RunOptions keyed = options;
  keyed.want_assembly = false;
  RunRequest request = make_request(inst, keyed, 0);
  request.kernel.clear();
  request.variant.clear();
  request.source = past_header(request.source);
  return to_json(request);
}

// The verdict's key: the requests (the full-size one, and the smaller
// one the verification runs at), the machine, the compiler's flags and the
// library's kernel choice. SHA-256 names the file: a project cannot craft
// two keys that share one, as it could under a 64-bit hash.
std::string verdict_key(const kernel::Instance& inst, const kernel::Instance* verify_at, const RunOptions& o) {
  const Json key = {kResultsVersion,
                    request_key(inst, o),
                    verify_at ? request_key(*verify_at, o) : Json("full"),
                    host_cpu(),
                    sysconf(_SC_NPROCESSORS_ONLN),
                    compile_flags_key(inst),
                    library_environment_key(inst),
                    interpreter_key(inst)};
  return key.dump(-1, ' ', false, Json::error_handler_t::replace);
}

fs::path cached_result_file(const kernel::Instance& inst, const kernel::Instance* verify_at, const RunOptions& o) {
  return results_cache_dir() / (sha256_hex(verdict_key(inst, verify_at, o)) + ".json");
}

// The roof a result is placed against: a GPU run brings its device's
// (measured copy bandwidth, peak FP32), a CPU run has the machine's.
Roof roof_of(const RunReply& reply, const Roof& machine) {
  if (!reply.gpu) return machine;
  Roof roof;
  roof.device = reply.gpu->device;
  roof.copy_gbs = reply.gpu->copy_gbs;
  roof.triad_gbs = reply.gpu->triad_gbs;
  roof.peak_gflops_f32 = reply.gpu->peak_gflops_f32;
  roof.peak_gflops_f64 = reply.gpu->peak_gflops_f64;
  return roof;
}

// A time is reported by the kernel's own process, where the kernel could
// have written it. One that this machine could not run (under a nanosecond,
// more FLOP/s than believable_gflops, or more bytes per second than 64
// times its copy bandwidth, which no cache reaches) is refused and never
// cached: an error, so such a forged time never wins a sweep.
void distrust_beyond_the_roof(RunReply& reply, const kernel::Instance& inst, const Roof& roof) {
  if (reply.status != Status::Ok || !reply.benchmark) return;
  const double ms = median_ms(reply);
  const double peak = peak_gflops(inst, roof);
  const double believable = believable_gflops(inst, roof, reply.gpu.has_value());
  const double gflops = ms > 0 ? static_cast<double>(inst.flops) / (ms / 1e3) / 1e9 : 0;
  const double gbs = ms > 0 ? static_cast<double>(inst.bytes) / (ms / 1e3) / 1e9 : 0;
  std::string why;
  if (ms <= 0)
    why = "it reported no time";
  else if (ms < 1e-6)  // whatever the project declares (or not) of its bytes and FLOPs
    why = "under a nanosecond is less than a call takes";
  else if (believable > 0 && gflops > believable)
    why = fmt::format("{:.4g} GFLOP/s is {:.0f}x this machine's peak ({:.4g}; at most {:.4g} is believable)", gflops, gflops / peak, peak,
                      believable);
  else if (roof.copy_gbs > 0 && gbs > 64 * roof.copy_gbs)
    why = fmt::format("{:.4g} GB/s is {:.0f}x this machine's copy bandwidth ({:.4g})", gbs, gbs / roof.copy_gbs, roof.copy_gbs);
  if (why.empty()) return;
  reply.status = Status::Error;
  reply.verified = false;
  reply.message = fmt::format("its reported time ({:.3g} ms) is not believable: {}; the kernel's process may have forged it", ms, why);
  reply.benchmark.reset();
}

// What the code decides is kept: crashes, hangs, cancels and errors of the
// machine are run again next time.
bool worth_caching(const RunReply& reply) {
  return reply.status == Status::Ok || reply.status == Status::Wrong || reply.status == Status::CompileError;
}

}  // namespace

CompileReply compile_in_worker(WorkerClient& worker, const kernel::Instance& inst, std::int64_t id, const WorkerClient::OnEvent& on_event,
                               const std::atomic<bool>* cancel) {
  const nlohmann::json answer =
      WorkerTransport::call(worker, to_json(CompileRequest{id, inst.source, inst.target}), compile_time_limit(), on_event, cancel);
  try {
    return compile_reply_from_json(answer);
  } catch (const LegoError& e) {
    return {Status::Error, std::string("the worker's answer: ") + e.what(), ""};
  }
}

namespace {

// Beside a cached result: the time it was refined to (store_refined_ms).
fs::path refined_file(const fs::path& result) {
  fs::path file = result;
  file.replace_extension(".refined.json");
  return file;
}

// The cached result's time where it verified (as options ask), else nullopt; its file in `file`.
std::optional<double> cached_first_ms(const kernel::Instance& inst, const kernel::Instance* verify_at, const RunOptions& options,
                                      fs::path& file) {
  file = cached_result_file(inst, verify_at, options);
  const std::optional<RunReply> hit = cached_reply(file);
  if (!hit || hit->status != Status::Ok || !hit->benchmark || (options.verify && !hit->verified)) return std::nullopt;
  const double ms = median_ms(*hit);
  return ms > 0 ? std::optional<double>(ms) : std::nullopt;
}

// A time taken again at the first one's pace is that code's again. A first
// timing can be a fluke by 27x (a 0.1 ms code timed 3.1 ms on a busy
// machine, then 0.03-0.13 ms five times), so a refinement may be far from
// it; one past 100x either way says the pacing itself went wrong, and is
// not kept or read.
bool refines(double first, double ms) {
  constexpr double kMostRefined = 100;
  return std::isfinite(ms) && ms > 0 && ms <= first * kMostRefined && ms * kMostRefined >= first;
}

}  // namespace

std::optional<double> cached_ms(const kernel::Instance& inst, const kernel::Instance* verify_at, const RunOptions& options) {
  fs::path file;
  const std::optional<double> first = cached_first_ms(inst, verify_at, options, file);
  if (!first) return std::nullopt;
  // A refinement counts only for the very result it refined: a result run again since is its own measurement.
  const Json refined = read_sealed(refined_file(file));
  if (refined.is_object() && refined.contains("of_ms") && refined.contains("ms") && refined.at("of_ms").is_number() &&
      refined.at("ms").is_number() && refined.at("of_ms").get<double>() == *first && refines(*first, refined.at("ms").get<double>()))
    return refined.at("ms").get<double>();
  return first;
}

void store_refined_ms(const kernel::Instance& inst, const kernel::Instance* verify_at, const RunOptions& options, double first_ms,
                      double ms) {
  fs::path file;
  const std::optional<double> first = cached_first_ms(inst, verify_at, options, file);
  // Only onto the result it was paced against: one the cache no longer holds (a run since, a write that failed) is not it.
  if (!first || *first != first_ms || !refines(*first, ms)) return;
  write_sealed(refined_file(file), Json{{"of_ms", *first}, {"ms", ms}}.dump() + "\n");
}

namespace {
constexpr const char* kTritonVerified = "verified (interpreter); not timed here: Triton kernels are timed on a GPU";
}  // namespace

VariantResult run_variant(WorkerClient& worker, const kernel::Instance& inst, const RunOptions& options, double timeout_s, const Roof& roof,
                          std::int64_t id, const WorkerClient::OnEvent& on_event, const std::atomic<bool>* cancel,
                          const kernel::Instance* verify_at) {
  VariantResult row;
  row.id = inst.variant;
  // Without options.cache a result is not reused, but it is stored: the
  // fresh run replaces what the cache held (a refresh, as --no-cache says).
  const fs::path cached = cached_result_file(inst, verify_at, options);
  std::optional<RunReply> hit = options.cache ? cached_reply(cached) : std::nullopt;
  // lego bench stores results without assembly and the app shows it: a hit
  // without it is compiled once more (never run) and stored with it, so
  // either program's sweep serves the other. A CUDA kernel's PTX comes with
  // its run: it runs again.
  if (hit && options.want_assembly && hit->assembly.empty()) {
    const CompileReply compiled =
        inst.backend == kernel::Backend::Cpu ? compile_in_worker(worker, inst, id, on_event, cancel) : CompileReply{};
    if (compiled.status == Status::Ok && !compiled.assembly.empty()) {
      hit->assembly = compiled.assembly;
      write_sealed(cached, to_json(*hit).dump() + "\n");
    } else {
      hit.reset();
    }
  }
  const auto call = [&](const kernel::Instance& instance, const RunOptions& run) {
    if (run.time) timing_gap().before_timing(&worker);
    return reply_of(WorkerTransport::call(worker, to_json(make_request(instance, run, id)), timeout_s, on_event, cancel));
  };
  RunReply& reply = row.reply;
  if (inst.backend == kernel::Backend::Triton && !options.verify) {  // nothing would be checked, nothing timed
    reply.status = Status::Error;
    reply.message = "a Triton variant is verified here and never timed (a GPU times it): --no-verify leaves nothing to run";
    return row;
  }
  if (hit) {
    reply = std::move(*hit);
    reply.cached = true;
  } else if (verify_at && options.verify) {
    RunOptions check = options;
    check.time = false;
    reply = call(*verify_at, check);
    std::map<std::string, std::int64_t> sizes;
    for (const auto& [name, value] : verify_at->parameters)
      if (inst.parameters.at(name) != value) sizes[name] = value;
    if (reply.status == Status::Ok && reply.verified && options.time && inst.backend != kernel::Backend::Triton) {
      RunOptions time = options;
      time.verify = false;
      RunReply timed = call(inst, time);
      if (timed.status == Status::Ok) {
        timed.verified = true;
        timed.checks = reply.checks;
      }
      reply = std::move(timed);
    }
    reply.verified_at = sizes;
    if (reply.verified && !sizes.empty()) {
      std::string at;
      for (const auto& [name, value] : sizes) at += (at.empty() ? "" : ", ") + name + "=" + std::to_string(value);
      const std::string said = reply.message;
      if (inst.backend == kernel::Backend::Triton)  // the sizes are the table's verified column
        reply.message = said.empty() ? kTritonVerified : std::string(kTritonVerified) + "; " + said;
      else
        reply.message =
            "verified at " + at + " (a smaller instance of the same code)" + (said.empty() ? "; timed at full size" : "; " + said);
    }
  } else {
    RunOptions run = options;
    run.verify = options.verify && inst.check;
    run.time = options.time && inst.backend != kernel::Backend::Triton;  // the interpreter's pace is no GPU's
    reply = call(inst, run);
    if (inst.backend == kernel::Backend::Triton && reply.status == Status::Ok && reply.verified && reply.message.empty())
      reply.message = kTritonVerified;
    if (!inst.check) reply.message = "a roof, not the kernel: timed, not compared with the reference";
  }
  if (!hit) {
    if (reply.benchmark) reply.timed_unix = static_cast<std::int64_t>(std::time(nullptr));
    distrust_beyond_the_roof(reply, inst, roof_of(reply, roof));
    if (options.store && worth_caching(reply)) write_sealed(cached, to_json(reply).dump() + "\n");
  }
  row.placed_against = roof_of(reply, roof);
  if (reply.status == Status::Ok && reply.benchmark) {
    row.ms = median_ms(reply);
    row.gbs = static_cast<double>(inst.bytes) / (row.ms / 1e3) / 1e9;
    row.gflops = static_cast<double>(inst.flops) / (row.ms / 1e3) / 1e9;
    // A GPU run brings its device's roofs: measured copy bandwidth, peak FP32.
    row.roof = percent_of_roof(inst, row.ms, row.placed_against);
  }
  return row;
}

}  // namespace lego::run
