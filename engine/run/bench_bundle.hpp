// Remote benchmarking: `lego export-bench` writes every CUDA variant of a
// kernel as standalone source plus a harness and a Makefile that need only
// nvcc. On a GPU machine `make run` verifies each variant against the
// reference (random inputs packed into the variant's layouts), times it
// with CUDA events (warm-up, median of at least 20 runs, buffers rotated
// through more than twice the L2) and writes results.json, which
// `lego import-results` merges into the project.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "run/outcome.hpp"

namespace lego::run {

// Relative path -> contents: harness.hpp, harness.cu, Makefile, README.md and
// one variant_<n>.cu per instance.
std::map<std::string, std::string> bench_bundle(const std::vector<kernel::Instance>& instances);

// The project text with the bundle's results under "results": kernel ->
// variant -> {device, median_ms, verified, ...}; other content and key order
// kept. Throws LegoError naming what is wrong with the results file.
// `unknown_variant(kernel, variant)` says why a variant id is not one of the
// project's (empty: it is); such a row is refused with its path. Without it,
// any id is merged (import-results --allow-unknown).
using UnknownVariant = std::function<std::string(const std::string& kernel, const std::string& variant)>;
std::string merge_results(const std::string& project_text, const std::string& results_text, const std::string& results_label,
                          const UnknownVariant& unknown_variant = {});

// The results merge_results put in a project ("results": kernel -> variant ->
// row), as outcomes with status Imported and a message naming the device.
// Rows without a median are left out; a project without results has none.
std::vector<Outcome> imported_outcomes(const nlohmann::json& project);

}  // namespace lego::run
