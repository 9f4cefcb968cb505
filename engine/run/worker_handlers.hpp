// The JSON side of the worker's requests that are not runs (those are
// run/protocol's typed RunRequest): the client's trace request, and what the
// worker and its kernel processes do with a request. Only run's own files,
// app/worker and tests of the protocol include this; the public headers
// (analyze, trace, ceilings) are typed.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "run/trace.hpp"

namespace lego::run {

// The request lego-worker takes ("kind": "analyze"): the marked source and
// what the trace needs to allocate and launch it.
nlohmann::json make_trace_request(const kernel::Instance& marked, const TraceOptions& options, std::int64_t id);

// In the worker's kernel process. Throws LegoError when the traced source does not compile.
Trace run_trace(const nlohmann::json& request);

// The worker's side of an "analyze" request: the trace, analysed (run/protocol's JSON).
nlohmann::json execute_analyze(const nlohmann::json& request);

// The worker's side of a "cuda-compile" request (cuda_resources_in_worker).
nlohmann::json execute_cuda_compile(const nlohmann::json& request);

}  // namespace lego::run
