#include "run/protocol.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "expr/diagnostic.hpp"
#include "kernel/bounded_json.hpp"

namespace lego::run {

using Json = nlohmann::json;

namespace {

// Whether every number in `j` converts to an int without undefined
// behaviour: nlohmann's get<int> of 6.7e32 is a float-to-int overflow.
bool numbers_fit_int(const Json& j) {
  if (j.is_number_float()) {
    const double x = j.get<double>();
    return std::isfinite(x) && x > -2147483648.0 && x < 2147483648.0;
  }
  if (j.is_array() || j.is_object()) return std::all_of(j.begin(), j.end(), [](const Json& v) { return numbers_fit_int(v); });
  return true;
}

// A field of a report, or a LegoError that names its JSON path.
template <class T>
T field(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw LegoError(where + "." + key + ": missing from the access report");
  if constexpr (!std::is_floating_point_v<T> && !std::is_same_v<T, Json>)
    if (!numbers_fit_int(j[key])) throw LegoError(where + "." + key + ": a number out of range where the access report has counts");
  try {
    return j[key].get<T>();
  } catch (const Json::exception&) {
    throw LegoError(where + "." + key + ": not the type the access report has there");
  }
}

// An integer field, or `fallback` when it is missing, not an integer or out
// of T's range: a results file's numbers never reach a narrowing conversion.
template <class T>
T integer_or(const Json& j, const char* key, T fallback) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer()) return fallback;
  if (j[key].is_number_unsigned()) {
    const std::uint64_t u = j[key].get<std::uint64_t>();
    return u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()) ? static_cast<T>(u) : fallback;
  }
  const std::int64_t v = j[key].get<std::int64_t>();
  return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max() ? static_cast<T>(v) : fallback;
}

double number(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

bool flag(const Json& j, const char* key) { return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>(); }

std::string text(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

Json site_json(const analysis::SiteReport& s, bool heatmap, const std::optional<analysis::SiteTouches>& touches) {
  Json j = {{"site", s.info.site},          {"name", s.info.name}, {"kind", analysis::to_string(s.info.kind)},
            {"access", s.info.placeholder}, {"line", s.info.line}, {"bytes", s.bytes},
            {"executions", s.executions}};
  if (s.access_bytes != s.bytes) j["access_bytes"] = s.access_bytes;  // an instruction moving several elements per lane
  if (s.info.kind == analysis::MemoryKind::Shared) {
    j["ways"] = s.max_ways;
    j["mean_ways"] = s.mean_ways;
    j["wavefronts"] = s.wavefronts;
    j["excess_wavefronts"] = s.excess_wavefronts;
    if (heatmap) {
      j["lane_bank"] = s.lane_bank;
      j["worst_lane_bank"] = s.worst_lane_bank;
    }
  } else if (s.info.kind == analysis::MemoryKind::Global) {
    j["sectors_per_request"] = s.sectors_per_request;
    j["ideal_sectors_per_request"] = s.ideal_sectors_per_request;
    j["efficiency"] = s.efficiency;
  } else {
    j["lines_per_access"] = s.lines_per_access;
    j["stride"] = s.common_stride;
    j["unit_stride"] = s.unit_stride;
  }
  if (touches) {
    Json list = Json::array();
    for (const auto& touch : touches->touches) list.push_back({touch.step, touch.thread, touch.offset, touch.phase, touch.occurrence});
    j["thread_map"] = {{"steps", touches->steps}, {"threads", touches->threads}, {"truncated", touches->truncated}, {"touches", list}};
  }
  return j;
}

analysis::MemoryKind memory_kind(const Json& site, const std::string& at) {
  const std::string word = field<std::string>(site, "kind", at);
  const std::optional<analysis::MemoryKind> kind = analysis::memory_kind_from_text(word);
  if (!kind) throw LegoError(at + ".kind: \"" + word + "\" is not shared, global or host");
  return *kind;
}

analysis::SiteTouches touches_from_json(const Json& map, const std::string& at) {
  analysis::SiteTouches t;
  t.steps = field<int>(map, "steps", at);
  t.threads = field<int>(map, "threads", at);
  t.truncated = field<bool>(map, "truncated", at);
  for (const auto& touch : field<Json>(map, "touches", at)) {
    const bool request = touch.is_array() && touch.size() == 5;  // with the warp request's phase and occurrence
    if (!touch.is_array() || (touch.size() != 3 && !request) ||
        !std::all_of(touch.begin(), touch.end(), [](const Json& v) { return v.is_number_integer(); }))
      throw LegoError(at + ".touches: each is [step, thread, offset] or [step, thread, offset, phase, occurrence]");
    t.touches.push_back({touch[0].get<std::int32_t>(), touch[1].get<std::int32_t>(), touch[2].get<std::int64_t>(),
                         request ? touch[3].get<std::int32_t>() : 0, request ? touch[4].get<std::int32_t>() : 0});
  }
  return t;
}

}  // namespace

Roof roof_from_json(const Json& roof) {
  Roof r;
  r.copy_gbs = number(roof, "copy_gbs");
  r.triad_gbs = number(roof, "triad_gbs");
  r.peak_gflops_f32 = number(roof, "peak_gflops_f32");
  r.peak_gflops_f64 = number(roof, "peak_gflops_f64");
  r.threads = static_cast<int>(number(roof, "threads"));
  r.array_mib = static_cast<int>(number(roof, "array_mib"));
  r.cpu = text(roof, "cpu");
  r.device = text(roof, "device");
  r.measured_at = text(roof, "measured_at");
  r.measured_unix = static_cast<std::int64_t>(number(roof, "measured_unix"));
  r.cached_file = text(roof, "cached");
  r.target = text(roof, "target");
  r.level = text(roof, "level");
  r.fma_chains = static_cast<int>(number(roof, "fma_chains"));
  r.clock_ghz = number(roof, "clock_ghz");
  r.theoretical_gflops_f32 = number(roof, "theoretical_gflops_f32");
  r.cpu_share = number(roof, "cpu_share");
  r.resident_mib = static_cast<int>(number(roof, "resident_mib"));
  // The line costs are measured clamped to [1, 16] ([1, 4] in parts); anything else in a file is not a measurement: 0, unknown.
  const auto cost = [&](const char* key, double most) {
    const double v = number(roof, key);
    return v >= 1 && v <= most ? v : 0.0;
  };
  r.lone_line_cost = cost("lone_line_cost", 16);
  r.pair_line_cost = cost("pair_line_cost", 16);
  r.quad_line_cost = cost("quad_line_cost", 16);
  r.partial_line_cost = cost("partial_line_cost", 4);
  return r;
}

Json roof_json(const Roof& roof) {
  Json j = {{"copy_gbs", roof.copy_gbs},
            {"triad_gbs", roof.triad_gbs},
            {"peak_gflops_f32", roof.peak_gflops_f32},
            {"peak_gflops_f64", roof.peak_gflops_f64}};
  if (roof.threads > 0) j["threads"] = roof.threads;
  if (roof.array_mib > 0) j["array_mib"] = roof.array_mib;
  if (!roof.cpu.empty()) j["cpu"] = roof.cpu;
  if (!roof.device.empty()) j["device"] = roof.device;
  if (!roof.measured_at.empty()) j["measured_at"] = roof.measured_at;
  if (roof.measured_unix != 0) j["measured_unix"] = roof.measured_unix;
  if (!roof.cached_file.empty()) j["cached"] = roof.cached_file;
  if (!roof.target.empty()) j["target"] = roof.target;
  if (!roof.level.empty()) j["level"] = roof.level;
  if (roof.fma_chains > 0) j["fma_chains"] = roof.fma_chains;
  if (roof.clock_ghz > 0) j["clock_ghz"] = roof.clock_ghz;
  if (roof.theoretical_gflops_f32 > 0) j["theoretical_gflops_f32"] = roof.theoretical_gflops_f32;
  if (roof.cpu_share > 0) j["cpu_share"] = roof.cpu_share;
  if (!roof.target.empty()) {  // a CPU roof's, 0 included: it was measured
    j["resident_mib"] = roof.resident_mib;
    j["lone_line_cost"] = roof.lone_line_cost;
    j["pair_line_cost"] = roof.pair_line_cost;
    j["quad_line_cost"] = roof.quad_line_cost;
    j["partial_line_cost"] = roof.partial_line_cost;
  }
  return j;
}

CudaResources cuda_resources_from_json(const Json& cuda) {
  CudaResources c;
  c.arch = text(cuda, "arch");
  c.registers = integer_or(cuda, "registers", -1);
  c.ok = cuda.is_object() && cuda.contains("ok") && cuda["ok"].is_boolean() ? cuda["ok"].get<bool>() : c.registers >= 0;
  c.ms = cuda.is_object() && cuda.contains("ms") && cuda["ms"].is_number() ? cuda["ms"].get<double>() : -1;
  if (cuda.is_object()) {
    c.shared_bytes = integer_or(cuda, "shared_bytes", decltype(c.shared_bytes){-1});
    c.spill_stores = integer_or(cuda, "spill_stores", decltype(c.spill_stores){-1});
    c.spill_loads = integer_or(cuda, "spill_loads", decltype(c.spill_loads){-1});
    c.ptx_bytes = integer_or(cuda, "ptx_bytes", decltype(c.ptx_bytes){-1});
    c.cubin_bytes = integer_or(cuda, "cubin_bytes", decltype(c.cubin_bytes){-1});
  }
  c.log = text(cuda, "log");
  return c;
}

Json cuda_resources_json(const CudaResources& c) {
  Json j = {{"arch", c.arch}, {"ok", c.ok}};
  if (c.ms >= 0) j["ms"] = c.ms;
  if (c.ok) {
    j["registers"] = c.registers;
    j["shared_bytes"] = c.shared_bytes;
    j["spill_stores"] = c.spill_stores;
    j["spill_loads"] = c.spill_loads;
    j["ptx_bytes"] = c.ptx_bytes;
    j["cubin_bytes"] = c.cubin_bytes;
  } else {
    j["log"] = c.log;
  }
  return j;
}

namespace {

// "N=256,T=8": the smaller sizes it was verified at.
std::string sizes_text(const std::map<std::string, std::int64_t>& sizes) {
  std::string out;
  for (const auto& [k, v] : sizes) out += (out.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return out;
}

}  // namespace

void read_variant_result(const VariantResult& r, Outcome& out) {
  const RunReply& reply = r.reply;
  out.status = reply.status;
  out.message = reply.message;
  out.verified = reply.verified;
  out.cached = reply.cached;
  out.timed_unix = reply.timed_unix;
  out.verified_at = sizes_text(reply.verified_at);
  out.assembly = reply.assembly;
  out.sandbox = reply.sandbox;
  out.input_seed = reply.input_seed;
  out.library_kernel = reply.library_kernel;
  out.library_level = reply.library_level;
  out.cuda = reply.cuda;
  if (r.ms > 0) {
    out.ms = r.ms;
    out.gbs = r.gbs;
    out.gflops = r.gflops;
    out.percent_of_roof = r.roof;
    out.benchmark = reply.benchmark;
    const std::vector<double> times = repetition_times_ms(reply);
    if (!times.empty()) {
      out.ms_min = *std::min_element(times.begin(), times.end());
      out.ms_max = *std::max_element(times.begin(), times.end());
      out.repetitions = static_cast<int>(times.size());
    }
  }
}

Json access_analysis_json(const AccessAnalysis& a) {
  Json sites = Json::array();
  for (std::size_t i = 0; i < a.report.sites.size(); ++i)
    sites.push_back(site_json(a.report.sites[i], a.heatmap, i < a.touches.size() ? a.touches[i] : std::nullopt));
  return {{"sites", sites},
          {"totals",
           {{"worst_ways", a.report.worst_ways},
            {"excess_wavefronts", a.report.excess_wavefronts},
            {"global_efficiency", a.report.global_efficiency},
            {"lines_per_iteration", a.report.lines_per_iteration}}},
          {"simulated_block", a.simulated_block},
          {"records", a.records},
          {"trace_compile_ms", a.trace_compile_ms},
          {"trace_run_ms", a.trace_run_ms}};
}

AccessAnalysis access_analysis_from_json(const Json& accesses) {
  AccessAnalysis a;
  const auto sites = field<Json>(accesses, "sites", "$");
  const auto totals = field<Json>(accesses, "totals", "$");
  a.report.worst_ways = field<int>(totals, "worst_ways", "$.totals");
  a.report.excess_wavefronts = field<std::int64_t>(totals, "excess_wavefronts", "$.totals");
  a.report.global_efficiency = field<double>(totals, "global_efficiency", "$.totals");
  a.report.lines_per_iteration = field<double>(totals, "lines_per_iteration", "$.totals");
  if (accesses.contains("simulated_block")) a.simulated_block = field<std::array<std::int64_t, 3>>(accesses, "simulated_block", "$");
  if (accesses.contains("records")) a.records = field<std::int64_t>(accesses, "records", "$");
  if (accesses.contains("trace_compile_ms")) a.trace_compile_ms = field<double>(accesses, "trace_compile_ms", "$");
  if (accesses.contains("trace_run_ms")) a.trace_run_ms = field<double>(accesses, "trace_run_ms", "$");
  if (!sites.is_array()) throw LegoError("$.sites: not a list");
  for (std::size_t i = 0; i < sites.size(); ++i) {
    const Json& j = sites[i];
    const std::string at = "$.sites[" + std::to_string(i) + "]";
    analysis::SiteReport s;
    s.info = {field<int>(j, "site", at), field<std::string>(j, "name", at), memory_kind(j, at), field<std::string>(j, "access", at),
              field<int>(j, "line", at)};
    s.bytes = field<int>(j, "bytes", at);
    s.access_bytes = j.contains("access_bytes") ? field<int>(j, "access_bytes", at) : s.bytes;
    s.executions = field<std::int64_t>(j, "executions", at);
    if (s.info.kind == analysis::MemoryKind::Shared) {
      s.max_ways = field<int>(j, "ways", at);
      s.mean_ways = field<double>(j, "mean_ways", at);
      s.wavefronts = field<std::int64_t>(j, "wavefronts", at);
      s.excess_wavefronts = field<std::int64_t>(j, "excess_wavefronts", at);
      if (j.contains("worst_lane_bank")) {
        s.lane_bank = field<analysis::LaneBankCounts>(j, "lane_bank", at);
        s.worst_lane_bank = field<analysis::LaneBankCounts>(j, "worst_lane_bank", at);
        a.heatmap = true;
      }
    } else if (s.info.kind == analysis::MemoryKind::Global) {
      s.sectors_per_request = field<double>(j, "sectors_per_request", at);
      s.ideal_sectors_per_request = field<double>(j, "ideal_sectors_per_request", at);
      s.efficiency = field<double>(j, "efficiency", at);
    } else {
      s.lines_per_access = field<double>(j, "lines_per_access", at);
      s.common_stride = field<std::int64_t>(j, "stride", at);
      s.unit_stride = field<bool>(j, "unit_stride", at);
    }
    std::optional<analysis::SiteTouches> touches;
    if (j.contains("thread_map")) touches = touches_from_json(field<Json>(j, "thread_map", at), at + ".thread_map");
    a.report.sites.push_back(std::move(s));
    a.touches.push_back(std::move(touches));
  }
  return a;
}

Json variant_analysis_json(const VariantAnalysis& v) {
  Json j = {{"kernel", v.kernel}, {"variant", v.variant}, {"backend", kernel::to_string(v.backend)}, {"status", status_text(v.status)}};
  if (!v.message.empty()) j["message"] = v.message;
  if (!v.cuda.empty()) {
    j["cuda"] = Json::array();
    for (const CudaResources& c : v.cuda) j["cuda"].push_back(cuda_resources_json(c));
  }
  if (v.accesses) j["accesses"] = access_analysis_json(*v.accesses);
  return j;
}

Json bench_results_json(const BenchResults& results) {
  Json benchmarks = Json::array(), context;
  for (const Outcome& r : results.run_order) {
    if (r.status == Status::Duplicate || r.status == Status::Invalid) continue;
    if (r.ms > 0 && r.benchmark) {
      if (context.is_null()) context = benchmark_context_json(*r.benchmark);
      for (const BenchmarkEntry& entry : r.benchmark->entries) {
        Json b = benchmark_entry_json(entry);
        b["variant"] = r.id;
        b["kernel"] = results.kernel;
        b["verified"] = r.verified;
        b["baseline"] = r.baseline;
        b["percent_of_roof"] = r.percent_of_roof;
        benchmarks.push_back(b);
      }
    } else {
      benchmarks.push_back({{"name", r.id},
                            {"variant", r.id},
                            {"kernel", results.kernel},
                            {"run_type", "iteration"},
                            {"error_occurred", true},
                            {"error_message", std::string(status_text(r.status)) + ": " + r.message},
                            {"status", status_text(r.status)},
                            {"verified", r.verified},
                            {"baseline", r.baseline}});
    }
  }
  if (context.is_null()) context = Json::object();
  context["lego_project"] = results.project_file;
  context["lego_kernel"] = results.kernel;
  context["lego_target"] = results.target;
  context["lego_ceilings"] = roof_json(results.roof);
  Json variants = Json::array();
  for (const Outcome* r : results.table_order) {
    Json speedups = Json::object();
    for (const BaselineTime& b : results.baselines) speedups[b.name] = r->ms > 0 ? b.ms / r->ms : 0.0;
    variants.push_back({{"variant", r->id},
                        {"status", status_text(r->status)},
                        {"message", r->status == Status::Duplicate ? std::string() : r->message},
                        {"verified", r->verified},
                        {"verified_at", r->verified_at},
                        {"baseline", r->baseline},
                        {"cached", r->cached},
                        {"median_ms", r->ms},
                        {"gbs", r->gbs},
                        {"gflops", r->gflops},
                        {"percent_of_roof", r->percent_of_roof},
                        {"speedups", speedups},
                        {"duplicate_of", r->duplicate_of},
                        {"library_kernel", r->library_kernel},
                        {"library_level", r->library_level}});
    // The seed its verification inputs came from, to reproduce it with --seed.
    if (r->input_seed != 0) variants.back()["input_seed"] = r->input_seed;
  }
  context["lego_variants"] = variants;
  if (const SideBySide* pairs = results.side_by_side) {
    Json bases = Json::array();
    for (std::size_t k = 0; k < pairs->baselines.size(); ++k)
      bases.push_back({{"baseline", pairs->baselines[k].id}, {"median_ms", pairs->baselines[k].ms}, {"speedup", pairs->ratio(k)}});
    context["lego_side_by_side"] = {
        {"rounds", pairs->rounds}, {"winner", pairs->winner}, {"winner_median_ms", pairs->winner_ms}, {"baselines", bases}};
  }
  return {{"context", context}, {"benchmarks", benchmarks}};
}

ReadResults read_bench_results(const std::string& results_text, const std::string& where) {
  const Json j = kernel::parse_json_or_discarded(results_text);
  if (j.is_discarded() || !j.is_object() || !j.contains("context") || !j["context"].is_object() ||
      !j["context"].contains("lego_variants") || !j["context"]["lego_variants"].is_array())
    throw LegoError(where + ": not a results file written by lego bench --json");
  ReadResults out;
  out.kernel = text(j["context"], "lego_kernel");
  out.target = text(j["context"], "lego_target");
  const Json& variants = j["context"]["lego_variants"];
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Json& v = variants[i];
    const std::string at = where + ": $.context.lego_variants[" + std::to_string(i) + "]";
    if (!v.is_object() || !v.contains("variant") || !v["variant"].is_string()) throw LegoError(at + ".variant: missing or not a string");
    Outcome o;
    o.kernel = out.kernel;
    o.id = v["variant"].get<std::string>();
    o.status = status_from_text(text(v, "status"));
    o.message = text(v, "message");
    o.verified = flag(v, "verified");
    o.verified_at = text(v, "verified_at");
    o.baseline = flag(v, "baseline");
    o.cached = flag(v, "cached");
    o.ms = v.contains("median_ms") && v["median_ms"].is_number() ? v["median_ms"].get<double>() : -1;
    o.gbs = number(v, "gbs");
    o.gflops = number(v, "gflops");
    o.percent_of_roof = number(v, "percent_of_roof");
    o.duplicate_of = text(v, "duplicate_of");
    o.library_kernel = text(v, "library_kernel");
    o.library_level = text(v, "library_level");
    out.outcomes.push_back(std::move(o));
  }
  return out;
}

}  // namespace lego::run
