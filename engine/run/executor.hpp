// What lego-worker does with one request: compile the variant and the
// reference, verify the variant on random inputs packed into its layouts,
// and time it with Google Benchmark. Requests and results are JSON (the
// worker protocol, docs/ARCHITECTURE.md); this runs in the worker process.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "run/jit.hpp"
#include "run/tensors.hpp"

namespace lego::run {

struct RunOptions {
  bool verify = true;
  bool time = true;
  bool want_assembly = false;
  int repetitions = 5;
  double min_time_s = 0.05;  // per repetition
  std::uint64_t seed = 1;
  bool cache = false;  // reuse results of unchanged code (run/sweep.hpp); not sent to the worker
};

// A self-contained request: the worker needs no project file.
nlohmann::json make_request(const kernel::Instance& instance, const RunOptions& options, std::int64_t id);

class Executor {
 public:
  using Progress = std::function<void(const std::string& stage)>;
  // Never throws for a bad kernel: the result's "status" says what happened
  // (ok, wrong, compile-error, error).
  nlohmann::json execute(const nlohmann::json& request, const Progress& progress = {});

 private:
  struct Reference {
    std::map<std::string, Buffer> outputs;  // by tensor name, logical order
  };
  Reference& reference(const nlohmann::json& request, const std::map<std::string, Buffer>& inputs);
  // Inputs packed into each tensor's layout, outputs poisoned, and the reference's outputs.
  struct Prepared {
    std::vector<Buffer> physical;
    std::vector<std::vector<std::int64_t>> tables;
    Reference* reference = nullptr;
  };
  Prepared prepare(const nlohmann::json& request, const std::function<void(const char*)>& stage);
  // Compares the outputs with the reference; false (and status "wrong") on a mismatch.
  static bool check_outputs(const nlohmann::json& request, const Prepared& data, nlohmann::json& result);
  // Writes outside a tensor, found by its canaries once the kernel's process is gone.
  static bool check_overruns(const nlohmann::json& request, const Prepared& data, nlohmann::json& result);
  void execute_cpu(const nlohmann::json& request, nlohmann::json& result, const std::function<void(const char*)>& stage);
  void execute_cuda(const nlohmann::json& request, nlohmann::json& result, const std::function<void(const char*)>& stage);

  std::string reference_key_;
  std::unique_ptr<Reference> reference_;
};

// extern "C" void <entry>(void** args) calling `function` with the tensors' typed pointers.
std::string entry_trampoline(const std::string& entry, const std::string& function, const nlohmann::json& tensors);

}  // namespace lego::run
