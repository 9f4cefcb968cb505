#include "run/analyze.hpp"

#include "kernel/instantiate.hpp"
#include "run/nvrtc.hpp"

namespace lego::run {

using Json = nlohmann::json;

Json cuda_resources(const std::string& source, const std::vector<std::string>& archs) {
  Json out = Json::array();
  if (const std::string why = nvrtc_unavailable(); !why.empty()) {
    for (const auto& arch : archs) out.push_back({{"arch", arch}, {"ok", false}, {"log", why}});
    return out;
  }
  for (const auto& arch : archs) {
    const CudaCompileResult c = compile_cuda(source, arch);
    Json j = {{"arch", arch}, {"ok", c.ok}, {"ms", c.ms}};
    if (c.ok) {
      j["registers"] = c.registers;
      j["shared_bytes"] = c.shared_bytes;
      j["spill_stores"] = c.spill_stores;
      j["spill_loads"] = c.spill_loads;
      j["ptx_bytes"] = c.ptx.size();
      j["cubin_bytes"] = c.cubin.size();
    } else {
      j["log"] = c.log;
    }
    out.push_back(std::move(j));
  }
  return out;
}

Json analyze_variant(WorkerClient& worker, const kernel::KernelSpec& spec, const kernel::Variant& variant, const AnalyzeOptions& options,
                     const std::atomic<bool>* cancel) {
  Json result = {{"kernel", spec.name}, {"variant", variant.id}, {"backend", spec.backend}};
  kernel::Instance marked;
  try {
    marked = kernel::instantiate(spec, variant, sym::Lang::C, {.mark_accesses = true});
    if (spec.backend == "cuda") {
      result["cuda"] = cuda_resources(kernel::instantiate(spec, variant, sym::Lang::Cuda).source, options.archs);
      for (const auto& c : result["cuda"])
        if (!c["ok"].get<bool>()) {
          result["status"] = "compile-error";
          result["message"] = c["arch"].get<std::string>() + ": " + c["log"].get<std::string>();
          return result;
        }
    }
  } catch (const LegoError& e) {
    result["status"] = "invalid";
    result["message"] = e.what();
    return result;
  }
  Json request = make_trace_request(marked, options.trace, 1);
  request["heatmap"] = options.heatmap;
  request["thread_map"] = options.thread_map;
  const Json r = worker.call(request, options.timeout_s, {}, cancel);
  result["status"] = r.value("status", "error");
  if (r.contains("message")) result["message"] = r["message"];
  if (r.contains("accesses")) result["accesses"] = r["accesses"];
  return result;
}

Json execute_analyze(const Json& request) {
  Json result = {{"id", request.value("id", 0)}, {"kernel", request.value("kernel", "")}, {"variant", request.value("variant", "")}};
  try {
    const Trace trace = run_trace(request);
    result["accesses"] = report_json(analysis::analyze_trace(trace.sites, trace.records), trace,
                                     {.heatmap = request.value("heatmap", false), .touches = request.value("thread_map", false)});
    result["status"] = "ok";
  } catch (const std::exception& e) {
    result["status"] = "error";
    result["message"] = e.what();
  }
  return result;
}

}  // namespace lego::run
