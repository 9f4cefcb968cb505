#include "run/analyze.hpp"

#include "kernel/instantiate.hpp"
#include "run/kernel_sandbox.hpp"
#include "run/nvrtc.hpp"
#include "run/protocol.hpp"
#include "run/worker_handlers.hpp"
#include "run/worker_transport.hpp"

namespace lego::run {

using Json = nlohmann::json;

std::vector<CudaResources> cuda_resources(const std::string& source, const std::vector<std::string>& archs) {
  std::vector<CudaResources> out;
  if (const std::string why = nvrtc_unavailable(); !why.empty()) {
    for (const auto& arch : archs) {
      CudaResources r;
      r.arch = arch;
      r.log = why;
      out.push_back(std::move(r));
    }
    return out;
  }
  for (const auto& arch : archs) {
    const CudaCompileResult c = compile_cuda(source, arch);
    CudaResources r;
    r.arch = arch;
    r.ok = c.ok;
    r.ms = c.ms;
    if (c.ok) {
      r.registers = c.registers;
      r.shared_bytes = c.shared_bytes;
      r.spill_stores = c.spill_stores;
      r.spill_loads = c.spill_loads;
      r.ptx_bytes = static_cast<std::int64_t>(c.ptx.size());
      r.cubin_bytes = static_cast<std::int64_t>(c.cubin.size());
    } else {
      r.log = c.log;
    }
    out.push_back(std::move(r));
  }
  return out;
}

Json execute_cuda_compile(const Json& request) {
  Json results = Json::array();
  const std::string source = request.at("source").get<std::string>();
  for (const auto& r : cuda_resources(source, request.at("archs").get<std::vector<std::string>>()))
    results.push_back(cuda_resources_json(r));
  Json reply = {{"status", status_text(Status::Ok)}, {"results", results}};
  if (request.value("ptx", false) && nvrtc_unavailable().empty()) {
    const CudaCompileResult c = compile_cuda(source, "sm_80");
    if (c.ok) reply["ptx"] = c.ptx;  // else none: the results say why (an export then refuses the kernel)
  }
  return reply;
}

double compile_time_limit() { return static_cast<double>(kernel_limit("LEGO_COMPILE_SECONDS", 60)); }

CudaCompiled cuda_resources_in_worker(WorkerClient& worker, const std::string& source, const std::vector<std::string>& archs, bool ptx,
                                      const std::atomic<bool>* cancel) {
  const Json reply = WorkerTransport::call(
      worker, {{"kind", "cuda-compile"}, {"id", 1}, {"source", source}, {"archs", archs}, {"ptx", ptx}}, compile_time_limit(), {}, cancel);
  CudaCompiled out;
  const Status status = status_from_text(reply.value("status", ""));
  if (status == Status::Ok && reply.contains("results") && reply["results"].is_array()) {
    for (const auto& r : reply["results"]) out.resources.push_back(cuda_resources_from_json(r));
    if (reply.contains("ptx") && reply["ptx"].is_string()) out.ptx = reply["ptx"].get<std::string>();
    return out;
  }
  const std::string why = status == Status::Timeout
                              ? "does not compile: timed out after " + std::to_string(static_cast<int>(compile_time_limit())) + " s"
                              : reply.value("message", std::string("the compile failed"));
  for (const auto& arch : archs) {
    CudaResources r;
    r.arch = arch;
    r.log = why;
    out.resources.push_back(std::move(r));
  }
  return out;
}

VariantAnalysis analyze_variant(WorkerClient& worker, const kernel::KernelSpec& spec, const kernel::Variant& variant,
                                const AnalyzeOptions& options, const std::atomic<bool>* cancel) {
  VariantAnalysis result;
  result.kernel = spec.name;
  result.variant = variant.id;
  result.backend = spec.backend;
  kernel::Instance marked;
  try {
    marked = kernel::instantiate(spec, variant, sym::Lang::C, {.mark_accesses = true, .target = options.target});
    marked.target = "host";  // traced here
    if (spec.backend == kernel::Backend::Cuda) {
      result.cuda =
          cuda_resources_in_worker(worker, kernel::instantiate(spec, variant, sym::Lang::Cuda).source, options.archs, false, cancel)
              .resources;
      for (const CudaResources& c : result.cuda)
        if (!c.ok) {
          result.status = Status::CompileError;
          result.message = c.arch + ": " + c.log;
          return result;
        }
    }
  } catch (const LegoError& e) {
    result.status = Status::Invalid;
    result.message = e.what();
    return result;
  }
  Json request = make_trace_request(marked, options.trace, 1);
  request["heatmap"] = options.heatmap;
  request["thread_map"] = options.thread_map;
  const Json r = WorkerTransport::call(worker, request, options.timeout_s, {}, cancel);
  result.status = status_from_text(r.value("status", "error"));
  if (r.contains("message") && r["message"].is_string()) result.message = r["message"].get<std::string>();
  if (r.contains("accesses")) try {
      result.accesses = access_analysis_from_json(r["accesses"]);
    } catch (const LegoError& e) {
      result.status = Status::Error;
      result.message = "the worker's access report: " + std::string(e.what());
    }
  return result;
}

Json execute_analyze(const Json& request) {
  Json result = {{"id", request.value("id", 0)}, {"kernel", request.value("kernel", "")}, {"variant", request.value("variant", "")}};
  try {
    const Trace trace = run_trace(request);
    result["accesses"] = access_analysis_json(
        access_analysis(trace, {.heatmap = request.value("heatmap", false), .touches = request.value("thread_map", false)}));
    result["status"] = status_text(Status::Ok);
  } catch (const std::exception& e) {
    result["status"] = status_text(Status::Error);
    result["message"] = e.what();
  }
  return result;
}

}  // namespace lego::run
