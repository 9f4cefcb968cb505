// A run request, typed: what `lego` and the app ask the worker to do with
// one variant (or a baseline), and the one set of defaults for it. JSON
// meets it in two places only: `to_json` when the client writes the line,
// `run_request_from_json` when the worker reads one that
// run/worker_request has already checked field by field.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"

namespace lego::run {

// How a variant is run: checked against the reference, timed, its
// assembly returned. The defaults are the run presets' (run/sweep.hpp).
struct RunOptions {
  bool verify = true;
  bool time = true;
  bool want_assembly = false;
  int repetitions = 5;
  double min_time_s = 0.05;  // per repetition
  std::uint64_t seed = 1;
  bool cache = false;  // reuse results of unchanged code (run/sweep.hpp); not sent to the worker
};

// One tensor as the worker allocates it: logical extents and the layout
// (the layout language, over the tensor's own coordinates) it is packed in.
struct TensorArgument {
  std::string name;
  kernel::ElementType type = kernel::ElementType::F32;
  kernel::Role role = kernel::Role::In;
  std::vector<std::int64_t> extents;
  std::string layout;
  std::int64_t elements() const;  // the product of the extents
};

struct RunRequest {
  std::int64_t id = 0;
  std::string kernel, variant;
  std::string source, reference;  // the kernel's translation unit; the reference's
  std::string library;            // a baseline's library ("openblas"), loaded in its process
  kernel::Backend backend = kernel::Backend::Cpu;
  std::string target = "host";  // the CPU the code is built for
  std::vector<TensorArgument> tensors;
  std::map<std::string, std::int64_t> parameters;
  double flops = 0, bytes = 0;
  double tolerance = 0;  // 0: the element type's default
  RunOptions options;
  std::array<std::int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};  // CUDA launch shape
};

// A self-contained request: the worker needs no project file.
RunRequest make_request(const kernel::Instance& instance, const RunOptions& options, std::int64_t id);

// The line the client writes ({"kind": "run", ...}; docs/ARCHITECTURE.md).
nlohmann::json to_json(const RunRequest& request);
// The worker's reading of a line that passed run::request_error: every
// field has its type, so this does not check again; an absent field takes
// the default above.
RunRequest run_request_from_json(const nlohmann::json& checked);

}  // namespace lego::run
