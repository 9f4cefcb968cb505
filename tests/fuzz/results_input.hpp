// One fuzz input for the readers of results files (issue 29): a bench
// results file (export --variant best), a bundle's results merged into a
// project (import-results, collect), the outcomes a project holds, a run
// reply (a worker's, or one the results cache kept). Each reads the text
// or refuses it with a LegoError, never anything else.
#pragma once

#include <string>

#include "expr/diagnostic.hpp"
#include "kernel/bounded_json.hpp"
#include "project/results.hpp"
#include "run/protocol.hpp"

namespace lego::fuzz {

inline const std::string kResultsProject =
    R"({"lego_studio_project": 1, "name": "p", "kernels": [{"name": "k", "template": "t.cpp", "tensors": [], "parameters": {}}]})";

inline void read_results_text(const std::string& text) {
  try {
    (void)run::read_bench_results(text, "results.json");
  } catch (const LegoError&) {
  }
  try {
    const std::string merged = project::merge_results(kResultsProject, text, "results.json");
    (void)project::imported_outcomes(merged);
  } catch (const LegoError&) {
  }
  const nlohmann::json reply = kernel::parse_json_or_discarded(text);
  if (!reply.is_discarded()) try {
      (void)run::to_json(run::run_reply_from_json(reply));
    } catch (const LegoError&) {
    }
  (void)kernel::parse_bounded_json(text);
}

}  // namespace lego::fuzz
