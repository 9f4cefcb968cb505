// The kernel's side of run/kernel_process.hpp: in the process the zygote
// forked, behind the sandbox, with nothing but its job and its buffers.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "kernel/bounded_json.hpp"
#include "run/analyze.hpp"
#include "run/fd_io.hpp"
#include "run/jit.hpp"
#include "run/kernel_process.hpp"
#include "run/kernel_sandbox.hpp"
#include "run/libraries.hpp"
#include "run/python_kernel.hpp"
#include "run/worker_handlers.hpp"

namespace lego::run {
namespace {

int events_out = -1;

void send(const nlohmann::json& message) {
  const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (!write_all(events_out, line.data(), line.size())) _exit(3);  // the worker is gone
}

[[noreturn]] void fail(const std::string& event, const std::string& message) {
  send({{"event", event}, {"message", message}});
  _exit(0);
}

std::string read_job(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) fail("error", "the job cannot be read");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = pread(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n <= 0) fail("error", "the job cannot be read");
    done += static_cast<std::size_t>(n);
  }
  return text;
}

using Entry = void (*)(void**);

// Object code travels in JSON as base64 (OpenSSL's, which the caches'
// seals already use).
std::string to_base64(const std::string& bytes) {
  std::string text(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()), reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  text.resize(static_cast<std::size_t>(n));
  return text;
}

std::string from_base64(const std::string& text) {
  if (text.size() % 4 != 0) return "";
  std::string bytes(3 * (text.size() / 4) + 1, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return "";
  std::size_t size = static_cast<std::size_t>(n);
  for (std::size_t k = text.size(); k > 0 && text[k - 1] == '='; --k) --size;  // DecodeBlock counts the padding
  bytes.resize(size);
  return bytes;
}

CompileOptions options_of(const nlohmann::json& spec) {
  CompileOptions options;
  options.openmp = spec.value("openmp", true);
  options.want_assembly = spec.value("assembly", false);
  options.library = spec.value("library", "");
  options.target = target::resolve(spec.value("target", "host"));
  options.link = !spec.value("compile_only", false);
  return options;
}

// The worker's compiler (run/kernel_process.cpp): one source after another,
// each a length and a JSON request on the control pipe, each answered with
// an "object" or a "compile-error" line. It keeps LLVM warm, which a fresh
// process per variant is not: a cold compile took 35-130 ms longer.
[[noreturn]] void serve_compiles(int control) {
  on_llvm_fatal_error([](const std::string& message) {
    send({{"event", to_string(KernelEvent::CompileError)}, {"message", "does not compile: " + message}, {"fatal", true}});
    _exit(0);
  });
  for (;;) {
    std::uint32_t size = 0;
    if (!read_all(control, &size, sizeof size) || size > (64u << 20)) _exit(0);
    std::string text(size, '\0');
    if (!read_all(control, text.data(), size)) _exit(0);
    const std::optional<nlohmann::json> request = kernel::parse_bounded_json(text);
    if (!request || !request->is_object() || !request->contains("source") || !(*request)["source"].is_string()) _exit(0);
    try {
      ObjectCode code = compile_object((*request)["source"].get<std::string>(), options_of(*request));
      if (code.object.empty())
        send({{"event", to_string(KernelEvent::CompileError)}, {"message", code.diagnostics}, {"ms", code.ms}});
      else
        send({{"event", to_string(KernelEvent::Object)},
              {"object", to_base64(code.object)},
              {"assembly", code.assembly},
              {"first_function", code.first_function},
              {"ms", code.ms}});
    } catch (const std::exception& e) {
      send({{"event", to_string(KernelEvent::CompileError)}, {"message", e.what()}});
    }
  }
}

// Where a fault landed, said in the tensors' terms: the no-access regions
// around each buffer (run/tensors.hpp) turn an out-of-bounds access into a
// fault, and this names the tensor and how far out it was.
struct Region {
  char name[64];
  std::uintptr_t data;
  std::size_t count, element;
};
Region regions[64];
int region_count = 0;

char* append(char* at, const char* end, const char* text) {
  while (*text && at < end) *at++ = *text++;
  return at;
}

char* append_number(char* at, const char* end, std::uint64_t n) {
  char digits[24];
  int k = 0;
  do digits[k++] = static_cast<char>('0' + n % 10);
  while ((n /= 10) > 0);
  while (k > 0 && at < end) *at++ = digits[--k];
  return at;
}

// Async-signal-safe: formats by hand, writes once, and dies of the signal.
void on_fault(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  bool write_access = false;
#if defined(__x86_64__)
  write_access = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
  (void)context;
#endif
  char line[512];
  char* at = line;
  const char* end = line + sizeof line - 4;
  for (int r = 0; r < region_count; ++r) {
    const Region& g = regions[r];
    const std::uintptr_t last = g.data + g.count * g.element;
    const std::uintptr_t reach = std::uintptr_t{1} << 30;
    const bool after = address >= last && address - last < reach + g.count * g.element;
    const bool before = address < g.data && g.data - address <= reach + g.count * g.element;
    if (!after && !before) continue;
    at = append(at, end, "{\"event\":\"fault\",\"message\":\"");
    at = append(at, end, write_access ? "wrote " : "touched ");
    at = append(at, end, g.name);
    at = append(at, end, after ? "[" : "[-");
    at = append_number(at, end, after ? (address - g.data) / g.element : (g.data - address + g.element - 1) / g.element);
    at = append(at, end, "], ");
    at = append_number(at, end, after ? (address - last) / g.element + 1 : (g.data - address + g.element - 1) / g.element);
    at = append(at, end, after ? " element(s) past its end (" : " element(s) before its start (");
    at = append(at, end, g.name);
    at = append(at, end, " holds ");
    at = append_number(at, end, g.count);
    at = append(at, end, ")\"}\n");
    (void)!write(events_out, line, static_cast<std::size_t>(at - line));
    break;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void watch_faults(const std::vector<Buffer>& mapped, const nlohmann::json& described) {
  static char alternate_stack[1 << 16];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  sigaltstack(&stack, nullptr);
  for (std::size_t k = 0; k < mapped.size() && k < 64; ++k) {
    Region& g = regions[region_count++];
    const std::string name = described[k].value("name", std::string("a tensor"));
    std::snprintf(g.name, sizeof g.name, "%s", name.c_str());
    g.data = reinterpret_cast<std::uintptr_t>(mapped[k].data());
    g.count = static_cast<std::size_t>(mapped[k].count());
    g.element = element_size(mapped[k].type());
  }
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &action, nullptr);
  sigaction(SIGBUS, &action, nullptr);
}

// Google Benchmark times the call; its JSON report goes back whole.
nlohmann::json time_entry(Entry entry, void** args, const nlohmann::json& job) {
  const double bytes = job.value("bytes", 0.0), flops = job.value("flops", 0.0);
  auto* b = benchmark::RegisterBenchmark(job.value("variant", std::string("kernel")).c_str(), [=](benchmark::State& state) {
    for (auto _ : state) entry(args);
    // A kernel without "bytes" has none to report: a rate of them would be
    // NaN, which Google Benchmark writes into its JSON as no JSON parses.
    if (bytes > 0) state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
    if (flops > 0) state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  });
  b->Repetitions(job.value("repetitions", 5))->MinTime(job.value("min_time", 0.05))->UseRealTime()->Unit(benchmark::kMillisecond);
  std::ostringstream out, err;
  benchmark::JSONReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  return nlohmann::json::parse(out.str(), nullptr, false);
}

}  // namespace

void kernel_process_main(int job_fd, int events_fd, int control_fd, const std::vector<int>& buffer_fds) {
  setpgid(0, 0);  // its own group: the worker kills it and all it started
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) _exit(0);  // the zygote is already gone
  // Its descriptors far up, and every other one closed.
  constexpr int kFirst = 1000;
  int next = kFirst;
  const int job = dup2(job_fd, next++), control = dup2(control_fd, next++);
  events_out = dup2(events_fd, next++);
  std::vector<int> buffers;
  for (int fd : buffer_fds) buffers.push_back(dup2(fd, next++));
  close_range(3, kFirst - 1, 0);
  close_range(static_cast<unsigned>(next), ~0U, 0);

  const std::optional<nlohmann::json> parsed = kernel::parse_bounded_json(read_job(job));
  if (!parsed || !parsed->is_object()) fail("error", "the job is not a JSON object");
  const nlohmann::json& spec = *parsed;
  try {
    std::vector<Buffer> mapped;
    std::vector<void*> args;
    const nlohmann::json& described = spec.at("buffers");
    if (described.size() != buffers.size()) fail("error", "the job names " + std::to_string(described.size()) + " buffers");
    for (std::size_t k = 0; k < buffers.size(); ++k) {
      mapped.push_back(Buffer::map(buffers[k], element_from_name(described[k].at("type").get<std::string>()),
                                   described[k].at("count").get<std::int64_t>()));
      args.push_back(mapped.back().data());
    }
    const bool python = spec.contains("python_source");
    const bool runs_openmp = !python && !spec.contains("analyze") && !spec.value("compile_server", false) &&
                             !spec.value("compile_only", false) && spec.value("openmp", true);
    if (runs_openmp) start_openmp_runtime();
    // The limits count from here: the tensors and their no-access regions
    // are mapped, and the budget is for what the kernel allocates.
    const std::string sandbox_note = enter_kernel_sandbox();
    watch_faults(mapped, described);
    if (python) run_python_kernel(spec, mapped, events_out, sandbox_note);
    // An access trace runs the project's code too (instrumented): here.
    if (spec.contains("analyze")) {
      send({{"event", to_string(KernelEvent::Analyzed)}, {"result", execute_analyze(spec["analyze"])}});
      _exit(0);
    }
    if (spec.value("compile_server", false)) serve_compiles(control);
    on_llvm_fatal_error([](const std::string& message) { fail("compile-error", "does not compile: " + message); });
    const CompileOptions options = options_of(spec);
    CompileResult compiled;
    if (spec.contains("object")) {  // compiled by the worker's compiler: linked and loaded here
      ObjectCode code;
      code.object = from_base64(spec["object"].get<std::string>());
      code.first_function = spec.value("first_function", "");
      if (code.object.empty()) fail("error", "the job's object code is not base64");
      compiled = load_object(code, options);
    } else {
      compiled = compile_cpp(spec.at("source").get<std::string>(), options);
    }
    if (!compiled.module) {
      send({{"event", to_string(KernelEvent::CompileError)}, {"message", compiled.diagnostics}, {"ms", compiled.ms}});
      _exit(0);
    }
    nlohmann::json done = {{"event", to_string(KernelEvent::Compiled)}, {"ms", compiled.ms}, {"sandbox", sandbox_note}};
    if (options.want_assembly) done["assembly"] = compiled.module->assembly();
    if (!options.library.empty()) {  // loaded here, so asked here: the core kernel it runs
      done["library_kernel"] = library_kernel(options.library);
      done["library_level"] = library_level(options.library);
    }
    send(done);
    if (!options.link) _exit(0);
    auto* entry = reinterpret_cast<Entry>(compiled.module->lookup(spec.at("entry").get<std::string>()));
    if (!entry) fail("error", "the kernel defines no " + spec.value("function", std::string("lego_kernel")) + " function");
    // Code that can say why it stops (the CUDA emulator, on lanes that never
    // meet) writes an error event line to this process's events: it gains
    // nothing it could not write to its own descriptors anyway.
    if (auto* jit_events_fd = reinterpret_cast<int*>(compiled.module->lookup("lego_events_fd"))) *jit_events_fd = events_out;
    entry(args.data());
    send({{"event", to_string(KernelEvent::Called)}});
    if (!spec.value("time", false)) _exit(0);
    char go = 0;
    if (read(control, &go, 1) != 1) _exit(0);  // the worker saw enough
    send({{"event", to_string(KernelEvent::Timed)}, {"benchmark", time_entry(entry, args.data(), spec)}});
  } catch (const std::exception& e) {
    fail("error", e.what());
  }
  _exit(0);
}

}  // namespace lego::run
