// Project code (a kernel, its reference, a baseline) runs in a process of
// its own, never in the worker that judges it. The worker is the trusted
// side: it prepares the inputs, compares the outputs and holds the nonce of
// the protocol; a kernel's process sees only its job and its buffers.
//
//   worker ──(job: memfd, buffers: memfds)──▶ zygote ──fork──▶ kernel process
//      ◀──────────── events (result pipe) ────────────────────────┘
//
// The zygote is forked when the worker starts, before it reads a request:
// what it forks has never held a nonce, a request line, a reference output
// or a protocol descriptor, so a kernel cannot find them in its memory. The
// kernel's process then (kernel_sandbox.cpp):
//   - keeps only its job, its result and control pipes and its buffers;
//   - leads its own process group, dies with the zygote (which dies with
//     the worker), and may not fork, exec, trace or open sockets (seccomp);
//   - has the user's address-space and CPU limits (LEGO_KERNEL_MEMORY_MIB,
//     LEGO_KERNEL_CPU_SECONDS) and no capabilities.
// Its source is compiled first, to an object, by the worker's compiler: a
// process forked and sandboxed the same way, kept across variants so that
// LLVM stays warm (a fresh process compiled 35-130 ms slower, a sandboxed
// sweep 25 % slower than one compiling in the worker). It is started again
// for another kernel, after 64 compiles, and after an LLVM fatal error. The
// kernel's process links and loads that object (its constructors run
// there), calls the entry once, waits while the worker checks the outputs,
// and then times it. What it reports is data: a time it tampers with is wrong, never
// a forged ✓, because the comparison is the worker's.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "run/messages.hpp"
#include "run/tensors.hpp"

namespace lego::run {

struct Zygote;

// Forks the zygote. Call once, first thing in the worker's main (before the
// protocol is opened); `keep_fd` is left open in the zygote (stderr).
// Removes libomp's registration files (/dev/shm/__KMP_REGISTERED_LIB_PID_UID)
// of this user's processes that are gone: a worker killed at a timeout,
// with its zygote and kernel, leaves them, and libomp would only have
// removed them at a clean exit. A live process's file is never touched.
void forget_openmp_registrations_of_the_dead();

void start_kernel_zygote();
bool kernel_zygote_running();
// At the worker's end: the zygotes and their processes end, and what they
// wrote is relayed to the worker's stderr before it exits (at most 2 s):
// a kernel's last lines are not lost with the worker.
void stop_kernel_zygotes_and_relay_their_output();

// What a kernel's process does (its job, as JSON in a memfd):
//   {"source", "entry", "target", "library", "openmp", "assembly", "scope",
//    "time", "repetitions", "min_time", "bytes", "flops", "variant",
//    "buffers": [{"type", "count"}, ..]}   (in the order of the fds)
class KernelProcess {
 public:
  KernelProcess(const nlohmann::json& job, const std::vector<const Buffer*>& buffers);
  ~KernelProcess();
  KernelProcess(const KernelProcess&) = delete;
  KernelProcess& operator=(const KernelProcess&) = delete;

  // The next event line, parsed and bounded (a kernel's process is not
  // trusted to write sane JSON); nullopt when it has ended.
  std::optional<nlohmann::json> next_event();
  pid_t pid() const { return pid_; }
  // Lets it go on from "called" to timing.
  void go();
  // Kills its whole process group and returns how it ended ("" when it
  // exited with status 0, else "killed by SIGSEGV" or "exited with status 3").
  std::string finish();
  // Writes a request to its control pipe, a length and then the bytes (the
  // compiler's requests); false when it has gone.
  bool request(const std::string& text);
  // Kills it, as finish() does, when how it ends no longer matters: its
  // exit is not waited for here but read before the next process starts, so
  // the kernel tears down a large address space while the worker prepares
  // the next variant (about 10 ms a process).
  void release();

 private:
  pid_t pid_ = -1;
  int events_ = -1, control_ = -1;
  std::string pending_;
  // The longest event line read: the compiler's object and assembly, or a
  // compile-only job's listing, are megabytes; a running kernel's events
  // (a timing report) are kilobytes, and a kernel could write gigabytes.
  std::size_t max_line_ = 4u << 20;
  std::string ended_;
  bool finished_ = false;
  // From the compiler: its answer when the source did not compile (the
  // first and only event), or its assembly and time for the "compiled" event.
  std::optional<nlohmann::json> not_compiled_, compiled_;
  Zygote* zygote_ = nullptr;  // the one that forked it
};

// A string field of an event from a kernel's process: "" when there is no
// event, or the field is absent or of another type (the process is not
// trusted to write what it should).
std::string event_text(const std::optional<nlohmann::json>& event, const char* key);

// What a kernel's process says in an event line ("event": WORD): its
// object is ready (Object, from the compiler's process), it compiled and
// loaded, did not compile, was called, was timed, faulted in a no-access
// region, analysed a trace, or failed; None when no line came (the process
// ended), Unknown for a word of no event.
enum class KernelEvent { None, Object, Compiled, CompileError, Called, Timed, Fault, Analyzed, Error, Unknown };
KernelEvent kernel_event(const std::optional<nlohmann::json>& event);
const char* to_string(KernelEvent event);  // the event line's word
// A number field of an event, or nullopt when it is missing or not a number.
std::optional<double> event_number(const std::optional<nlohmann::json>& event, const char* key);

// The worker's "compile" request: the source compiled to assembly in a
// kernel's process, never linked or run (export, the code views): Ok with
// the assembly, or CompileError with the compiler's message.
CompileReply compile_without_running(const CompileRequest& request);

// The worker's "analyze" request: the traced kernel runs in a kernel's
// process, which sends the analysis back.
nlohmann::json analyze_in_kernel_process(const nlohmann::json& request);

// The kernel's side, in the forked process: never returns.
[[noreturn]] void kernel_process_main(int job_fd, int events_fd, int control_fd, const std::vector<int>& buffer_fds);

}  // namespace lego::run
