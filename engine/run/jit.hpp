// C++ compiled in process by the Clang/LLVM 15 libraries and run through the
// ORC JIT: no external compiler at run time, -O3 for the host CPU. The
// assembly of the same optimized module is kept for the code view.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace lego::run {

struct CompileOptions {
  std::vector<std::string> extra_args;  // e.g. -DNAME=value
  bool openmp = true;
  bool want_assembly = true;
  // A library the code may call, from a fixed list: "openblas" (baselines
  // only; loaded from the system's libopenblas.so.0). Empty: none.
  std::string library;
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

// The host CPU as LLVM names it (for reports).
std::string host_cpu();

}  // namespace lego::run
