// What lego-worker does with one request: compile the variant and the
// reference, verify the variant on random inputs packed into its layouts,
// and time it with Google Benchmark. It takes a typed request and gives a
// typed reply (run/messages.hpp); the worker reads and writes them as JSON
// lines (run/protocol.hpp). This runs in the worker process.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernel/instantiate.hpp"
#include "run/cuda_atoms_emulation.hpp"
#include "run/jit.hpp"
#include "run/messages.hpp"
#include "run/tensors.hpp"

namespace lego::run {

// The seed a request's inputs are drawn from: its own, or the one this
// worker drew (RunOptions::seed).
std::uint64_t input_seed(const RunRequest& request);

class Executor {
 public:
  using Progress = std::function<void(const std::string& stage)>;
  Executor() = default;
  // The warp atoms' tables the CPU emulator of CUDA kernels computes
  // ldmatrix, stmatrix and mma.sync from (a test plants a wrong one).
  explicit Executor(AtomSource atoms) : atoms_(std::move(atoms)) {}
  // Never throws for a bad kernel: the reply's status says what happened
  // (ok, wrong, compile-error, out of bounds, crashed, error, no GPU).
  RunReply execute(const RunRequest& request, const Progress& progress = {});

 private:
  struct Reference {
    std::map<std::string, Buffer> outputs;  // by tensor name, logical order
  };
  Reference& reference(const RunRequest& request, const std::map<std::string, Buffer>& inputs);
  // Inputs packed into each tensor's layout, outputs poisoned, and the reference's outputs.
  struct Prepared {
    std::vector<Buffer> physical;
    std::vector<std::vector<std::int64_t>> tables;
    Reference* reference = nullptr;
  };
  Prepared prepare(const RunRequest& request, const std::function<void(const char*)>& stage);
  // Compares the outputs with the reference; false (and status "wrong") on a mismatch.
  static bool check_outputs(const RunRequest& request, const Prepared& data, RunReply& result);
  // Writes outside a tensor, found by its canaries once the kernel's process is gone.
  static bool check_overruns(const RunRequest& request, const Prepared& data, RunReply& result);
  void execute_cpu(const RunRequest& request, RunReply& result, const std::function<void(const char*)>& stage);
  void execute_cuda(const RunRequest& request, RunReply& result, const std::function<void(const char*)>& stage);

  std::string reference_key_;
  std::unique_ptr<Reference> reference_;
  AtomSource atoms_ = atom::resolve_atom;
};

// extern "C" void <entry>(void** args) calling `function` with the tensors' typed pointers.
std::string entry_trampoline(const std::string& entry, const std::string& function, const std::vector<kernel::ElementType>& types);

}  // namespace lego::run
