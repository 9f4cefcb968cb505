// The run messages of the worker protocol (run/messages.hpp) as JSON lines:
// the request the client writes and the worker reads, the reply the worker
// writes, the client reads and the results cache keeps.
#include <cmath>

#include "expr/diagnostic.hpp"
#include "run/protocol.hpp"

namespace lego::run {

using Json = nlohmann::json;

namespace {

// Reads the fields of one JSON object, naming the path of any that has the
// wrong type: "reply.gpu.times_ms[2]: not a number".
class Fields {
 public:
  Fields(const Json& object, std::string at) : j_(object), at_(std::move(at)) {
    if (!j_.is_object()) throw LegoError(at_ + ": not an object");
  }
  const std::string& at() const { return at_; }
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  const Json& raw(const char* key) const { return j_[key]; }
  std::string path(const char* key) const { return at_ + "." + key; }

  std::string text(const char* key, std::string fallback = {}) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_string()) throw LegoError(path(key) + ": not a string");
    return j_[key].get<std::string>();
  }
  bool flag(const char* key, bool fallback = false) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_boolean()) throw LegoError(path(key) + ": not true or false");
    return j_[key].get<bool>();
  }
  double number(const char* key, double fallback = 0) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_number()) throw LegoError(path(key) + ": not a number");
    return j_[key].get<double>();
  }
  std::int64_t integer(const char* key, std::int64_t fallback = 0) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_number_integer()) throw LegoError(path(key) + ": not an integer");
    return j_[key].get<std::int64_t>();
  }
  // A time, a count or a rate: finite and not negative.
  std::optional<double> measure(const char* key) const {
    if (!has(key)) return std::nullopt;
    const double v = number(key);
    if (!std::isfinite(v) || v < 0) throw LegoError(path(key) + ": not a finite number of at least 0");
    return v;
  }
  std::optional<std::int64_t> count(const char* key) const {
    if (!has(key)) return std::nullopt;
    const std::int64_t v = integer(key);
    if (v < 0) throw LegoError(path(key) + ": negative");
    return v;
  }
  template <class Each>
  void each(const char* key, Each&& each) const {
    if (!has(key)) return;
    if (!j_[key].is_array()) throw LegoError(path(key) + ": not a list");
    for (std::size_t k = 0; k < j_[key].size(); ++k) each(j_[key][k], path(key) + "[" + std::to_string(k) + "]");
  }

 private:
  const Json& j_;
  std::string at_;
};

template <class T>
void put(Json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

void put_text(Json& j, const char* key, const std::string& value) {
  if (!value.empty()) j[key] = value;
}

BenchmarkEntry benchmark_entry(const Json& j, const std::string& at) {
  const Fields f(j, at);
  BenchmarkEntry e;
  e.name = f.text("name");
  e.run_name = f.text("run_name");
  e.run_type = f.text("run_type");
  e.aggregate_name = f.text("aggregate_name");
  e.aggregate_unit = f.text("aggregate_unit");
  e.time_unit = f.text("time_unit");
  e.real_time = f.measure("real_time");
  e.cpu_time = f.measure("cpu_time");
  e.bytes_per_second = f.measure("bytes_per_second");
  e.flops = f.measure("FLOPS");
  e.iterations = f.count("iterations");
  e.repetitions = f.count("repetitions");
  e.repetition_index = f.count("repetition_index");
  e.family_index = f.count("family_index");
  e.per_family_instance_index = f.count("per_family_instance_index");
  e.threads = f.count("threads");
  if (!e.real_time) throw LegoError(at + ".real_time: missing");
  // Google Benchmark writes a spread of 0; a time is positive.
  const bool spread = e.aggregate_name == "stddev" || e.aggregate_name == "cv";
  if (!spread && !(*e.real_time > 0)) throw LegoError(at + ".real_time: not positive");
  return e;
}

OutputCheck output_check(const Json& j, const std::string& at) {
  const Fields f(j, at);
  OutputCheck c;
  c.tensor = f.text("tensor");
  c.mismatches = f.integer("mismatches");
  c.max_error = f.number("max_error");
  c.tolerance = f.number("tolerance");
  if (f.has("first_mismatch")) {
    const Fields m(f.raw("first_mismatch"), f.path("first_mismatch"));
    c.first_mismatch = OutputCheck::Mismatch{m.integer("position"), m.text("got"), m.text("want")};
  }
  return c;
}

Json output_check_json(const OutputCheck& c) {
  Json j = {{"tensor", c.tensor}, {"mismatches", c.mismatches}, {"max_error", c.max_error}, {"tolerance", c.tolerance}};
  if (c.first_mismatch)
    j["first_mismatch"] = {{"position", c.first_mismatch->position}, {"got", c.first_mismatch->got}, {"want", c.first_mismatch->want}};
  return j;
}

GpuTiming gpu_timing(const Json& j, const std::string& at) {
  const Fields f(j, at);
  GpuTiming g;
  g.device = f.text("device");
  f.each("times_ms", [&](const Json& t, const std::string& where) {
    if (!t.is_number() || !std::isfinite(t.get<double>()) || t.get<double>() <= 0) throw LegoError(where + ": not a positive time");
    g.times_ms.push_back(t.get<double>());
  });
  g.rotation = static_cast<int>(f.integer("rotation", 1));
  g.copy_gbs = f.number("copy_gbs");
  g.triad_gbs = f.number("triad_gbs");
  g.peak_bandwidth_gbs = f.number("peak_bandwidth_gbs");
  g.peak_gflops_f32 = f.number("peak_gflops_f32");
  g.peak_gflops_f64 = f.number("peak_gflops_f64");
  return g;
}

Json gpu_timing_json(const GpuTiming& g) {
  return {{"device", g.device},
          {"times_ms", g.times_ms},
          {"rotation", g.rotation},
          {"copy_gbs", g.copy_gbs},
          {"triad_gbs", g.triad_gbs},
          {"peak_bandwidth_gbs", g.peak_bandwidth_gbs},
          {"peak_gflops_f32", g.peak_gflops_f32},
          {"peak_gflops_f64", g.peak_gflops_f64}};
}

}  // namespace

// The kernel's process reports its Google Benchmark JSON; the kernel runs in
// that process and may have written it. Only the fields the tools read are
// kept, each of the type they are read as, so what reaches a table, a file
// or the cache is numbers, never whatever the report held.
BenchmarkReport benchmark_report_from_json(const Json& report, const std::string& at) {
  const Fields f(report, at);
  BenchmarkReport r;
  if (!f.has("benchmarks") || !f.raw("benchmarks").is_array() || f.raw("benchmarks").empty())
    throw LegoError(f.path("benchmarks") + ": not a list of runs");
  if (f.raw("benchmarks").size() > 10000) throw LegoError(f.path("benchmarks") + ": holds more runs than the worker asked for");
  f.each("benchmarks", [&](const Json& entry, const std::string& where) { r.entries.push_back(benchmark_entry(entry, where)); });
  // The context describes the machine: flat values only, anything else dropped.
  if (f.has("context") && f.raw("context").is_object())
    for (const auto& [key, value] : f.raw("context").items()) {
      if (value.is_string())
        r.context.emplace_back(key, value.get<std::string>());
      else if (value.is_boolean())
        r.context.emplace_back(key, value.get<bool>());
      else if (value.is_number_integer())
        r.context.emplace_back(key, value.get<std::int64_t>());
      else if (value.is_number())
        r.context.emplace_back(key, value.get<double>());
    }
  return r;
}

Json benchmark_context_json(const BenchmarkReport& report) {
  Json context = Json::object();
  for (const auto& [key, value] : report.context) std::visit([&, &key = key](const auto& v) { context[key] = v; }, value);
  return context;
}

Json benchmark_entry_json(const BenchmarkEntry& e) {
  Json j = Json::object();
  put_text(j, "name", e.name);
  put_text(j, "run_name", e.run_name);
  put_text(j, "run_type", e.run_type);
  put_text(j, "aggregate_name", e.aggregate_name);
  put_text(j, "aggregate_unit", e.aggregate_unit);
  put_text(j, "time_unit", e.time_unit);
  put(j, "real_time", e.real_time);
  put(j, "cpu_time", e.cpu_time);
  put(j, "bytes_per_second", e.bytes_per_second);
  put(j, "FLOPS", e.flops);
  put(j, "iterations", e.iterations);
  put(j, "repetitions", e.repetitions);
  put(j, "repetition_index", e.repetition_index);
  put(j, "family_index", e.family_index);
  put(j, "per_family_instance_index", e.per_family_instance_index);
  put(j, "threads", e.threads);
  return j;
}

Json benchmark_report_json(const BenchmarkReport& report) {
  Json entries = Json::array();
  for (const BenchmarkEntry& e : report.entries) entries.push_back(benchmark_entry_json(e));
  return {{"context", benchmark_context_json(report)}, {"benchmarks", entries}};
}

Json to_json(const RunRequest& r) {
  Json tensors = Json::array();
  for (const auto& t : r.tensors)
    tensors.push_back({{"name", t.name},
                       {"type", kernel::c_type(t.type)},
                       {"role", kernel::to_string(t.role)},
                       {"extents", t.extents},
                       {"layout", t.layout}});
  return {{"id", r.id},
          {"kind", "run"},
          {"kernel", r.kernel},
          {"variant", r.variant},
          {"source", r.source},
          {"reference", r.reference},
          {"tensors", tensors},
          {"parameters", r.parameters},
          {"flops", r.flops},
          {"bytes", r.bytes},
          {"tolerance", r.tolerance},
          {"verify", r.options.verify},
          {"time", r.options.time},
          {"assembly", r.options.want_assembly},
          {"repetitions", r.options.repetitions},
          {"backend", kernel::to_string(r.backend)},
          {"grid", r.grid},
          {"block", r.block},
          {"min_time", r.options.min_time_s},
          {"seed", r.options.seed},
          {"library", r.library},
          {"target", r.target}};
}

RunRequest run_request_from_json(const Json& j) {
  const RunRequest defaults;
  RunRequest r;
  r.id = j.value("id", defaults.id);
  r.kernel = j.value("kernel", defaults.kernel);
  r.variant = j.value("variant", defaults.variant);
  r.source = j.value("source", defaults.source);
  r.reference = j.value("reference", defaults.reference);
  r.library = j.value("library", defaults.library);
  r.backend = kernel::backend_from_text(j.value("backend", kernel::to_string(defaults.backend))).value_or(defaults.backend);
  r.target = j.value("target", defaults.target);
  if (const auto t = j.find("tensors"); t != j.end())
    for (const Json& tensor : *t)
      r.tensors.push_back({tensor.at("name").get<std::string>(),
                           kernel::element_type_from_c_type(tensor.at("type").get<std::string>()).value_or(kernel::ElementType::F32),
                           kernel::role_from_text(tensor.at("role").get<std::string>()).value_or(kernel::Role::In),
                           tensor.at("extents").get<std::vector<std::int64_t>>(), tensor.value("layout", std::string())});
  if (const auto p = j.find("parameters"); p != j.end())
    for (const auto& [name, value] : p->items()) r.parameters[name] = value.get<std::int64_t>();
  r.flops = j.value("flops", defaults.flops);
  r.bytes = j.value("bytes", defaults.bytes);
  r.tolerance = j.value("tolerance", defaults.tolerance);
  r.options.verify = j.value("verify", defaults.options.verify);
  r.options.time = j.value("time", defaults.options.time);
  r.options.want_assembly = j.value("assembly", defaults.options.want_assembly);
  r.options.repetitions = j.value("repetitions", defaults.options.repetitions);
  r.options.min_time_s = j.value("min_time", defaults.options.min_time_s);
  r.options.seed = j.value("seed", defaults.options.seed);
  r.grid = j.value("grid", defaults.grid);
  r.block = j.value("block", defaults.block);
  return r;
}

Json to_json(const RunReply& r) {
  Json j = {{"id", r.id}, {"kernel", r.kernel}, {"variant", r.variant}, {"status", status_text(r.status)}};
  put_text(j, "message", r.message);
  j["verified"] = r.verified;
  if (!r.checks.empty()) {
    j["checks"] = Json::array();
    for (const OutputCheck& c : r.checks) j["checks"].push_back(output_check_json(c));
  }
  put_text(j, "verified_by", r.verified_by);
  if (!r.verified_at.empty()) j["verified_at"] = r.verified_at;
  if (r.cached) j["cached"] = true;
  if (r.timed_unix > 0) j["timed_unix"] = r.timed_unix;
  if (r.kernel_ms >= 0) j["kernel_ms"] = r.kernel_ms;
  put_text(j, "assembly", r.assembly);
  put_text(j, "sandbox", r.sandbox);
  if (r.input_seed != 0) j["input_seed"] = r.input_seed;
  put_text(j, "library_kernel", r.library_kernel);
  put_text(j, "library_level", r.library_level);
  if (r.cuda) j["cuda"] = cuda_resources_json(*r.cuda);
  if (r.gpu) j["gpu"] = gpu_timing_json(*r.gpu);
  if (r.benchmark) j["benchmark"] = benchmark_report_json(*r.benchmark);
  return j;
}

RunReply run_reply_from_json(const Json& j, const std::string& at) {
  const Fields f(j, at);
  RunReply r;
  r.id = f.integer("id");
  r.kernel = f.text("kernel");
  r.variant = f.text("variant");
  const std::string status = f.text("status");
  r.status = status_from_text(status);
  if (status_text(r.status) != status) throw LegoError(f.path("status") + ": \"" + status + "\" is not a status");
  r.message = f.text("message");
  r.verified = f.flag("verified");
  f.each("checks", [&](const Json& c, const std::string& where) { r.checks.push_back(output_check(c, where)); });
  r.verified_by = f.text("verified_by");
  if (f.has("verified_at")) {
    const Fields sizes(f.raw("verified_at"), f.path("verified_at"));
    for (const auto& [name, value] : f.raw("verified_at").items()) r.verified_at[name] = sizes.integer(name.c_str());
  }
  r.cached = f.flag("cached");
  r.timed_unix = f.integer("timed_unix");
  r.kernel_ms = f.number("kernel_ms", -1);
  r.assembly = f.text("assembly");
  r.sandbox = f.text("sandbox");
  r.input_seed = static_cast<std::uint64_t>(f.integer("input_seed"));
  r.library_kernel = f.text("library_kernel");
  r.library_level = f.text("library_level");
  if (f.has("cuda")) r.cuda = cuda_resources_from_json(f.raw("cuda"));
  if (f.has("gpu")) r.gpu = gpu_timing(f.raw("gpu"), f.path("gpu"));
  if (f.has("benchmark")) r.benchmark = benchmark_report_from_json(f.raw("benchmark"), f.path("benchmark"));
  return r;
}

Json to_json(const CompileRequest& r) { return {{"kind", "compile"}, {"id", r.id}, {"source", r.source}, {"target", r.target}}; }

CompileRequest compile_request_from_json(const Json& j) {
  const Fields f(j, "request");
  return {f.integer("id"), f.text("source"), f.text("target", "host")};
}

Json to_json(const CompileReply& r) {
  Json j = {{"status", status_text(r.status)}};
  put_text(j, "message", r.message);
  put_text(j, "assembly", r.assembly);
  return j;
}

CompileReply compile_reply_from_json(const Json& j, const std::string& at) {
  const Fields f(j, at);
  CompileReply r;
  const std::string status = f.text("status");
  r.status = status_from_text(status);
  if (status_text(r.status) != status) throw LegoError(f.path("status") + ": \"" + status + "\" is not a status");
  r.message = f.text("message", status);  // the status's word when the compiler sent none
  r.assembly = f.text("assembly");
  return r;
}

}  // namespace lego::run
