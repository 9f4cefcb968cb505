#include "run/worker_request.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "kernel/bounded_json.hpp"
#include "kernel/spec.hpp"
#include "target/target.hpp"

namespace lego::run {

using Json = nlohmann::json;

namespace {

// Throws the first problem as "$.path: why"; caught by request_error.
struct Problem {
  std::string text;
};

class Fields {
 public:
  Fields(const Json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) throw Problem{path_ + ": expected an object"};
  }
  std::string at(const std::string& key) const { return path_ + "." + key; }
  const Json* find(const std::string& key, bool required) const {
    const auto it = object_.find(key);
    if (it != object_.end()) return &*it;
    if (required) throw Problem{at(key) + ": missing"};
    return nullptr;
  }
  void string(const std::string& key, bool required = false, const std::set<std::string>& allowed = {}) const {
    const Json* v = find(key, required);
    if (!v) return;
    if (!v->is_string()) throw Problem{at(key) + ": expected a string"};
    if (!allowed.empty() && !allowed.count(v->get<std::string>())) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw Problem{at(key) + ": expected one of " + list};
    }
  }
  void boolean(const std::string& key) const {
    if (const Json* v = find(key, false); v && !v->is_boolean()) throw Problem{at(key) + ": expected true or false"};
  }
  std::int64_t integer(const std::string& key, std::int64_t lo, std::int64_t hi, bool required = false) const {
    const Json* v = find(key, required);
    if (!v) return lo;
    return integer_value(*v, at(key), lo, hi);
  }
  void number(const std::string& key, double lo, double hi, bool lo_open = false) const {
    const Json* v = find(key, false);
    if (!v) return;
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < lo || (lo_open && v->get<double>() <= lo) ||
        v->get<double>() > hi) {
      const auto text = [](double x) {
        std::ostringstream s;
        s << x;
        return s.str();
      };
      const std::string range = hi == std::numeric_limits<double>::max()
                                    ? (lo_open ? "above " : "at least ") + text(lo)
                                    : std::string("in ") + (lo_open ? "(" : "[") + text(lo) + ", " + text(hi) + "]";
      throw Problem{at(key) + ": expected a number " + range + (v->is_number() ? ", got " + text(v->get<double>()) : "")};
    }
  }
  static std::int64_t integer_value(const Json& v, const std::string& path, std::int64_t lo, std::int64_t hi) {
    // Unsigned values above int64's range are refused, not wrapped.
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(hi)) || v.get<std::int64_t>() < lo ||
        v.get<std::int64_t>() > hi)
      throw Problem{path + (lo == std::numeric_limits<std::int64_t>::min() && hi == std::numeric_limits<std::int64_t>::max()
                                ? std::string(": expected an integer")
                                : ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]")};
    return v.get<std::int64_t>();
  }

 private:
  const Json& object_;
  std::string path_;
};

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
// The element types' C names, as requests spell them (kernel/spec.hpp's c_type).
const std::set<std::string> kElementTypeNames = [] {
  std::set<std::string> names;
  for (const kernel::ElementType t : kernel::kElementTypes) names.insert(kernel::c_type(t));
  return names;
}();

void check_launch(const Fields& f, const std::string& key, std::size_t count) {
  const Json* v = f.find(key, false);
  if (!v) return;
  if (!v->is_array() || v->size() != count) throw Problem{f.at(key) + ": expected " + std::to_string(count) + " integers"};
  for (std::size_t k = 0; k < count; ++k)
    Fields::integer_value((*v)[k], f.at(key) + "[" + std::to_string(k) + "]", 1, std::int64_t{1} << 31);
}

// A run request's tensors: names, element types, roles and extents, with
// the total size capped before anything is allocated.
void check_tensors(const Fields& f, bool analyze) {
  const Json& tensors = *f.find("tensors", true);
  if (!tensors.is_array() || std::int64_t(tensors.size()) > kMaxRequestTensors)
    throw Problem{f.at("tensors") + ": expected an array of at most " + std::to_string(kMaxRequestTensors) + " tensors"};
  std::int64_t total_bytes = 0;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const std::string path = f.at("tensors") + "[" + std::to_string(k) + "]";
    const Fields t(tensors[k], path);
    t.string("name", true);
    t.string("type", true, kElementTypeNames);
    const auto bytes =
        static_cast<std::int64_t>(kernel::element_bytes(*kernel::element_type_from_c_type(tensors[k]["type"].get<std::string>())));
    std::int64_t elements = 1;
    if (analyze) {
      elements = t.integer("elements", 0, kMaxRequestTensorBytes / bytes, true);
    } else {
      t.string("role", true, {"in", "out", "inout"});
      t.string("layout");
      const Json& extents = *t.find("extents", true);
      if (!extents.is_array() || extents.size() > 127) throw Problem{t.at("extents") + ": expected an array of at most 127 integers"};
      for (std::size_t e = 0; e < extents.size(); ++e) {
        const std::int64_t n = Fields::integer_value(extents[e], t.at("extents") + "[" + std::to_string(e) + "]", 0, kInt64Max);
        if (n != 0 && elements > kMaxRequestTensorBytes / bytes / n) throw Problem{t.at("extents") + ": the tensor exceeds 16 GiB"};
        elements *= n;
      }
    }
    total_bytes += elements * bytes;
    if (total_bytes > kMaxRequestTensorBytes) throw Problem{path + ": the tensors together exceed 16 GiB"};
  }
}

// "host" and every named target (target/target.hpp).
const std::set<std::string>& known_targets() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out = {"host"};
    for (const auto& n : target::known_names()) out.insert(n);
    return out;
  }();
  return names;
}

void check_run(const Fields& f) {
  for (const char* key : {"kernel", "variant", "reference", "library"}) f.string(key);
  f.string("source", true);
  f.string("backend", false, {"cpu", "cuda", "triton"});
  f.string("target", false, known_targets());
  for (const char* key : {"verify", "time", "assembly"}) f.boolean(key);
  f.integer("repetitions", 1, kMaxRequestRepetitions);
  f.number("min_time", 0, kMaxRequestMinTime, true);
  if (const Json* seed = f.find("seed", false); seed && !seed->is_number_unsigned() && !(seed->is_number_integer() && *seed >= 0))
    throw Problem{f.at("seed") + ": expected an integer >= 0"};
  f.number("tolerance", 0, std::numeric_limits<double>::max());
  f.number("flops", 0, std::numeric_limits<double>::max());
  f.number("bytes", 0, std::numeric_limits<double>::max());
  if (const Json* p = f.find("parameters", false)) {
    if (!p->is_object()) throw Problem{f.at("parameters") + ": expected an object of integers"};
    for (const auto& [name, value] : p->items())
      Fields::integer_value(value, f.at("parameters") + "." + name, std::numeric_limits<std::int64_t>::min(), kInt64Max);
  }
  check_tensors(f, false);
  check_launch(f, "grid", 3);
  check_launch(f, "block", 3);
}

void check_analyze(const Fields& f) {
  for (const char* key : {"kernel", "variant"}) f.string(key);
  f.string("source", true);
  f.string("backend", true, {"cpu", "cuda", "triton"});
  for (const char* key : {"heatmap", "thread_map"}) f.boolean(key);
  f.integer("per_site", 0, std::int64_t{1} << 30);
  f.integer("budget", 0, std::int64_t{1} << 34);
  check_tensors(f, true);
  check_launch(f, "launch", 6);
  const Json& sites = *f.find("sites", true);
  if (!sites.is_array()) throw Problem{f.at("sites") + ": expected an array"};
  for (std::size_t k = 0; k < sites.size(); ++k) {
    const Fields s(sites[k], f.at("sites") + "[" + std::to_string(k) + "]");
    s.integer("site", 0, std::numeric_limits<int>::max(), true);
    s.integer("line", 0, std::numeric_limits<int>::max(), true);
    for (const char* key : {"name", "kind", "placeholder"}) s.string(key, true);
  }
}

}  // namespace

std::string request_error(const Json& request) {
  try {
    const Fields f(request, "$");
    f.integer("id", std::numeric_limits<std::int64_t>::min(), kInt64Max);
    f.string("nonce");
    f.string("kind", false, {"run", "analyze", "ceilings", "ping", "compile", "cuda-compile"});
    const std::string kind = request.value("kind", "run");
    if (kind == "run") check_run(f);
    if (kind == "analyze") check_analyze(f);
    if (kind == "cuda-compile") {
      f.string("source", true);
      f.boolean("ptx");
      const Json* archs = f.find("archs", true);
      if (!archs->is_array() || archs->size() > 16) throw Problem{f.at("archs") + ": expected an array of at most 16 architectures"};
      for (const auto& a : *archs)
        if (!a.is_string() || a.get<std::string>().rfind("sm_", 0) != 0)
          throw Problem{f.at("archs") + ": expected names such as \"sm_80\""};
    }
    if (kind == "compile") {
      f.string("source", true);
      f.string("target", false, known_targets());
    }
    if (kind == "ceilings") {
      f.integer("array_mib", 1, kMaxCeilingsMiB);
      f.string("target", false, known_targets());
    }
    return "";
  } catch (const Problem& p) {
    return p.text;
  }
}

ParsedRequest parse_request(const std::string& line) {
  ParsedRequest parsed;
  parsed.request = kernel::parse_json_or_discarded(line);
  if (parsed.request.is_discarded() || !parsed.request.is_object()) {
    parsed.error = "bad request: the request is not a JSON object";
    parsed.request = Json();
    return parsed;
  }
  // The id and nonce are echoed even in an error, when they have the right type.
  if (const auto id = parsed.request.find("id"); id != parsed.request.end() && id->is_number_integer()) parsed.id = *id;
  if (const auto nonce = parsed.request.find("nonce"); nonce != parsed.request.end() && nonce->is_string()) parsed.nonce = *nonce;
  if (const std::string why = request_error(parsed.request); !why.empty()) parsed.error = "bad request: " + why;
  return parsed;
}

}  // namespace lego::run
