#include "run/executor.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <sstream>

#include "layout/compile.hpp"
#include "layout/parse.hpp"

namespace lego::run {

using Json = nlohmann::json;

Json make_request(const kernel::Instance& instance, const RunOptions& options, std::int64_t id) {
  Json tensors = Json::array();
  for (const auto& t : instance.tensors)
    tensors.push_back({{"name", t.name},
                       {"type", kernel::c_type(t.type)},
                       {"role", kernel::to_string(t.role)},
                       {"extents", t.extents},
                       {"layout", t.view_text}});
  Json parameters = Json::object();
  for (const auto& [k, v] : instance.parameters) parameters[k] = v;
  return {{"id", id},
          {"kind", "run"},
          {"kernel", instance.kernel},
          {"variant", instance.variant},
          {"source", instance.source},
          {"reference", instance.reference},
          {"tensors", tensors},
          {"parameters", parameters},
          {"flops", instance.flops},
          {"bytes", instance.bytes},
          {"tolerance", instance.tolerance},
          {"verify", options.verify},
          {"time", options.time},
          {"assembly", options.want_assembly},
          {"repetitions", options.repetitions},
          {"min_time", options.min_time_s},
          {"seed", options.seed}};
}

std::string entry_trampoline(const std::string& entry, const std::string& function, const Json& tensors) {
  std::string call;
  for (std::size_t k = 0; k < tensors.size(); ++k)
    call += (k ? ", " : "") + std::string("(") + tensors[k]["type"].get<std::string>() + "*)args[" + std::to_string(k) + "]";
  return "\nextern \"C\" void " + entry + "(void** args) { " + function + "(" + call + "); }\n";
}

namespace {

using Entry = void (*)(void**);

std::vector<std::int64_t> layout_table(const Json& tensor, const Env& env) {
  const Plan plan = compile(parse_layout(tensor["layout"].get<std::string>()), env);
  std::vector<std::int64_t> table(static_cast<std::size_t>(plan.size()));
  plan.apply_all(table.data());
  return table;
}

std::int64_t elements(const Json& tensor) {
  std::int64_t n = 1;
  for (const auto& e : tensor["extents"]) n *= e.get<std::int64_t>();
  return n;
}

std::unique_ptr<JitModule> compile_or_report(const std::string& source, bool want_assembly, Json& result, const char* what) {
  CompileOptions options;
  options.want_assembly = want_assembly;
  CompileResult c = compile_cpp(source, options);
  result[std::string(what) + "_ms"] = c.ms;
  if (!c.module) {
    result["status"] = "compile-error";
    result["message"] = std::string(what) + " does not compile:\n" + c.diagnostics;
  }
  return std::move(c.module);
}

// Google Benchmark times the call; its JSON report comes back whole.
Json time_kernel(Entry entry, void** args, const Json& request) {
  const double bytes = request["bytes"].get<double>(), flops = request["flops"].get<double>();
  auto* b = benchmark::RegisterBenchmark(request["variant"].get<std::string>().c_str(), [=](benchmark::State& state) {
    for (auto _ : state) entry(args);
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
    if (flops > 0) state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  });
  b->Repetitions(request["repetitions"].get<int>())
      ->MinTime(request["min_time"].get<double>())
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  std::ostringstream out, err;
  benchmark::JSONReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  return Json::parse(out.str());
}

}  // namespace

Executor::Reference& Executor::reference(const Json& request, const std::map<std::string, Buffer>& inputs) {
  // Reference outputs depend on the reference, the tensors' extents and the seed, not on layouts.
  Json key = {request["reference"], request["parameters"], request["seed"]};
  for (const auto& t : request["tensors"]) key.push_back({t["name"], t["extents"], t["type"], t["role"]});
  const std::string key_text = key.dump();
  if (reference_ && key_text == reference_key_) return *reference_;
  reference_.reset();
  auto ref = std::make_unique<Reference>();
  Json scratch;
  ref->module = compile_or_report(
      request["reference"].get<std::string>() + entry_trampoline("lego_reference_entry", "lego_reference", request["tensors"]), false,
      scratch, "the reference");
  if (!ref->module) throw std::runtime_error(scratch["message"].get<std::string>());
  auto* entry = reinterpret_cast<Entry>(ref->module->lookup("lego_reference_entry"));
  std::vector<void*> args;
  std::map<std::string, Buffer> work;
  for (const auto& t : request["tensors"]) {
    const std::string name = t["name"];
    Buffer b(element_from_name(t["type"]), elements(t));
    if (t["role"] == "out")
      poison(b);
    else
      std::memcpy(b.data(), inputs.at(name).data(), element_size(b.type()) * b.count());
    args.push_back(b.data());
    work.emplace(name, std::move(b));
  }
  entry(args.data());
  for (const auto& t : request["tensors"])
    if (t["role"] != "in") ref->outputs.emplace(t["name"].get<std::string>(), std::move(work.at(t["name"].get<std::string>())));
  reference_key_ = key_text;
  reference_ = std::move(ref);
  return *reference_;
}

Json Executor::execute(const Json& request, const Progress& progress) {
  Json result = {{"id", request.value("id", 0)}, {"kernel", request.value("kernel", "")}, {"variant", request.value("variant", "")}};
  auto stage = [&](const char* s) {
    if (progress) progress(s);
  };
  try {
    stage("compile");
    const Json& tensors = request.at("tensors");
    auto module = compile_or_report(request.at("source").get<std::string>() + entry_trampoline("lego_entry", "lego_kernel", tensors),
                                    request.value("assembly", false), result, "the kernel");
    if (!module) return result;
    if (request.value("assembly", false)) result["assembly"] = module->assembly();
    auto* entry = reinterpret_cast<Entry>(module->lookup("lego_entry"));
    if (!entry) {
      result["status"] = "error";
      result["message"] = "the kernel defines no lego_kernel function";
      return result;
    }
    Env env;
    for (const auto& [k, v] : request.at("parameters").items()) env[k] = v.get<std::int64_t>();

    std::vector<Buffer> physical;
    std::vector<std::vector<std::int64_t>> tables;
    // The same seeded logical inputs feed the reference and the variant.
    std::map<std::string, Buffer> inputs;
    const std::uint64_t seed = request.value("seed", std::uint64_t{1});
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      Buffer b(element_from_name(tensors[k]["type"]), elements(tensors[k]));
      fill_random(b, seed * 1000003 + k);
      inputs.emplace(tensors[k]["name"].get<std::string>(), std::move(b));
    }
    stage("reference");
    Reference* ref = request.value("verify", true) ? &reference(request, inputs) : nullptr;
    stage("pack");
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      const Json& t = tensors[k];
      tables.push_back(layout_table(t, env));
      Buffer p = pack(inputs.at(t["name"].get<std::string>()), tables.back());
      if (t["role"] == "out") poison(p);
      physical.push_back(std::move(p));
    }
    std::vector<void*> args;
    for (auto& p : physical) args.push_back(p.data());

    if (ref) {
      stage("verify");
      entry(args.data());
      bool ok = true;
      Json checks = Json::array();
      for (std::size_t k = 0; k < tensors.size(); ++k) {
        const Json& t = tensors[k];
        if (t["role"] == "in") continue;
        const Buffer got = unpack(physical[k], tables[k]);
        const double tol = request.value("tolerance", 0.0) > 0 ? request["tolerance"].get<double>() : default_tolerance(got.type());
        const Comparison c = compare(got, ref->outputs.at(t["name"].get<std::string>()), tol);
        Json check = {{"tensor", t["name"]}, {"mismatches", c.mismatches}, {"max_error", c.max_error}, {"tolerance", tol}};
        if (c.mismatches) {
          ok = false;
          check["first_mismatch"] = {{"position", c.first_mismatch}, {"got", c.first_got}, {"want", c.first_want}};
        }
        checks.push_back(check);
      }
      result["verified"] = ok;
      result["checks"] = checks;
      if (!ok) {
        result["status"] = "wrong";
        result["message"] = "the output differs from the reference";
        return result;
      }
    }
    if (request.value("time", true)) {
      stage("time");
      result["benchmark"] = time_kernel(entry, args.data(), request);
    }
    result["status"] = "ok";
  } catch (const std::exception& e) {
    result["status"] = "error";
    result["message"] = e.what();
  }
  return result;
}

}  // namespace lego::run
