// C++ compiled in process by the Clang/LLVM 15 libraries and run through the
// ORC JIT: no external compiler at run time, -O3 for the options' target
// (the host, or a lower level of its ISA such as x86-64-v3 on an AVX-512
// machine). The module is compiled to machine code here, so every LLVM error
// (inline asm that cannot be allocated, an intrinsic the target lacks) is a
// compile error with LLVM's text. The assembly of the same optimized module
// is kept for the code view.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "target/target.hpp"

namespace lego::run {

struct CompileOptions {
  std::vector<std::string> extra_args;  // e.g. -DNAME=value
  bool openmp = true;
  bool want_assembly = true;
  // A library the code may call, from a fixed list (run/libraries.hpp:
  // "openblas", "blis"; baselines only). Empty: none.
  std::string library;
  // The machine the code is built for; it must run on this one (the same
  // ISA, no feature this machine lacks), else compile_cpp refuses it.
  target::Target target = target::host();
  // False: machine code and assembly only, never linked or loaded, so none
  // of the source's code (a global constructor) can run. lookup() of such a
  // module finds nothing.
  bool link = true;
};

class JitModule {
 public:
  virtual ~JitModule() = default;
  // The address of an extern "C" function, or nullptr when the module lacks it.
  virtual void* lookup(const std::string& name) = 0;
  virtual const std::string& assembly() const = 0;
};

struct CompileResult {
  std::unique_ptr<JitModule> module;  // null when compilation failed
  std::string diagnostics;            // clang's messages, file "kernel.cpp"
  double ms = 0;
};

// Thread-compatible, not thread-safe: one compile at a time per process.
CompileResult compile_cpp(const std::string& source, const CompileOptions& options = {});

// compile_cpp in its two halves, for a compile in one process and a run in
// another (run/kernel_process.hpp): the source to a relocatable object (and
// its assembly when asked), nothing linked or loaded; then that object
// linked and loaded, its library and the process's symbols (libomp)
// resolved, its constructors run.
struct ObjectCode {
  std::string object;          // ELF bytes; empty when it does not compile
  std::string assembly;        // when options.want_assembly (or !link)
  std::string first_function;  // looked up at load, so link errors are compile errors
  std::string diagnostics;
  double ms = 0;
};
ObjectCode compile_object(const std::string& source, const CompileOptions& options = {});
CompileResult load_object(const ObjectCode& code, const CompileOptions& options = {});

// Starts libomp (the runtime OpenMP code calls) in this process. It
// registers itself with a file in /dev/shm as it starts, which a process
// whose files are read-only cannot write (a fatal error): a kernel's process
// starts it before its sandbox.
void start_openmp_runtime();

// The host CPU as LLVM names it (for reports).
std::string host_cpu();

// Why code for `target` cannot run in this process ("" when it can).
std::string cannot_run_here(const target::Target& target);

// LLVM's fatal errors (report_fatal_error) end the process; a worker hears
// the message first, answers the request as a compile error, and exits.
void on_llvm_fatal_error(std::function<void(const std::string& message)> report);

}  // namespace lego::run
