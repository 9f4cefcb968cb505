// Results in a project file: a bench bundle's results.json merged under
// "results" (lego import-results), and those rows read back as outcomes.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernel/spec.hpp"
#include "run/outcome.hpp"

namespace lego::project {

// The project text with the bundle's results under "results": kernel ->
// variant -> {device, median_ms, verified, ...}; other content and key order
// kept. Throws LegoError naming what is wrong with the results file.
// `unknown_variant(kernel, variant)` says why a variant id is not one of the
// project's (empty: it is); such a row is refused with its path. Without it,
// any id is merged (import-results --allow-unknown).
using UnknownVariant = std::function<std::string(const std::string& kernel, const std::string& variant)>;
// What a merge took in, for the user: rows merged and the device they were
// measured on ("" when the file does not say).
struct MergeSummary {
  std::size_t rows = 0;
  std::string device;
};
std::string merge_results(const std::string& project_text, const std::string& results_text, const std::string& results_label,
                          const UnknownVariant& unknown_variant = {}, MergeSummary* summary = nullptr);

// The check import-results, collect and the app's Run on cluster use: a row
// must name one of the project's kernels and a variant it can produce.
UnknownVariant unknown_variant_of(kernel::Project project);

// The results merge_results put in a project ("results": kernel -> variant ->
// row), as outcomes with status Imported and a message naming the device.
// Rows without a median are left out; a project without results has none.
std::vector<run::Outcome> imported_outcomes(const nlohmann::json& project);
std::vector<run::Outcome> imported_outcomes(const std::string& project_text);  // none when it is not JSON

}  // namespace lego::project
