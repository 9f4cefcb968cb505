#include "kernel/spec.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "expr/parser.hpp"
#include "kernel/bounded_json.hpp"
#include "kernel/project_files.hpp"
#include "layout/parse.hpp"
#include "target/target.hpp"

namespace lego::kernel {

using OrderedJson = nlohmann::ordered_json;

const char* c_type(ElementType t) {
  switch (t) {
    case ElementType::F32:
      return "float";
    case ElementType::F64:
      return "double";
    case ElementType::I32:
      return "int32_t";
    case ElementType::I64:
      return "int64_t";
    case ElementType::F16:
      return "uint16_t";
  }
  return "float";
}

std::size_t element_bytes(ElementType t) {
  switch (t) {
    case ElementType::F16:
      return 2;
    case ElementType::F32:
    case ElementType::I32:
      return 4;
    case ElementType::F64:
    case ElementType::I64:
      return 8;
  }
  return 4;
}

std::optional<ElementType> element_type_from_c_type(const std::string& text) {
  for (const ElementType t : kElementTypes)
    if (text == c_type(t)) return t;
  return std::nullopt;
}

const char* to_string(Role r) { return r == Role::In ? "in" : r == Role::Out ? "out" : "inout"; }

std::optional<Role> role_from_text(const std::string& text) {
  for (const Role r : {Role::In, Role::Out, Role::InOut})
    if (text == to_string(r)) return r;
  return std::nullopt;
}

const char* to_string(Backend b) { return b == Backend::Cuda ? "cuda" : b == Backend::Triton ? "triton" : "cpu"; }

std::optional<Backend> backend_from_text(const std::string& text) {
  for (const Backend b : {Backend::Cpu, Backend::Cuda, Backend::Triton})
    if (text == to_string(b)) return b;
  return std::nullopt;
}

namespace {

// Where offset `at` of `text` is, as line:column.
std::string place_of(const std::string& text, std::size_t at) {
  const LineColumn lc = line_column(text, at);
  return std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

class Reader {
 public:
  Reader(std::string file, std::filesystem::path base, std::vector<std::filesystem::path> dirs)
      : file_(std::move(file)), base_(std::move(base)), dirs_(std::move(dirs)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const { throw ProjectError(file_, path, message); }

  const OrderedJson& member(const OrderedJson& object, const std::string& key, const std::string& path) const {
    if (!object.contains(key)) fail(path, "missing \"" + key + "\"");
    return object.at(key);
  }
  std::string string_at(const OrderedJson& object, const std::string& key, const std::string& path) const {
    const OrderedJson& v = member(object, key, path);
    if (!v.is_string()) fail(path + "." + key, "expected a string");
    std::string text = v.get<std::string>();
    // Each of a project's strings is one line: a name or a description with
    // a newline printed by lego as a line of its own could forge a verdict
    // line (issue 61); an escape sequence would reach the terminal.
    if (const auto c = std::find_if(text.begin(), text.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; });
        c != text.end()) {
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(*c)));
      fail(path + "." + key, std::string("a control character (") + code + ") at character " + std::to_string(c - text.begin() + 1) +
                                 ": each text here is one line");
    }
    return text;
  }
  std::string optional_string(const OrderedJson& object, const std::string& key, const std::string& path) const {
    return object.contains(key) ? string_at(object, key, path) : std::string();
  }

  // A formula or constraint over the parameters; errors point into the string.
  Expr expression(const std::string& text, const std::string& path) const {
    try {
      return parse_expression(text);
    } catch (const LegoError& e) {
      fail(path, located(text, e));
    }
  }

  LayoutChoice layout(const std::string& name, const OrderedJson& value, const std::string& path) const {
    if (!value.is_string()) fail(path, "expected a layout in the layout language, as a string");
    LayoutChoice c{name, value.get<std::string>(), {}};
    try {
      c.ast = parse_layout(c.text);
    } catch (const LegoError& e) {
      fail(path, located(c.text, e));
    }
    return c;
  }

  // "layouts": "text" or {"name": "text", ...} (alternatives, in file order).
  std::vector<LayoutChoice> alternatives(const OrderedJson& value, const std::string& path) const {
    std::vector<LayoutChoice> out;
    if (value.is_string()) {
      out.push_back(layout("default", value, path));
      return out;
    }
    if (!value.is_object() || value.empty()) fail(path, "expected a layout string or an object of named alternative layouts");
    for (const auto& [name, text] : value.items()) {
      check_name(name, path + "." + name);
      out.push_back(layout(name, text, path + "." + name));
    }
    return out;
  }

  void check_name(const std::string& name, const std::string& path) const {
    const bool ok =
        !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
        std::all_of(name.begin(), name.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
    if (!ok) fail(path, "\"" + name + "\" is not a name (letters, digits and _, not starting with a digit)");
  }

  // A template, reference or baseline: inside the project's folder or a
  // resource folder only (kernel/project_files.hpp).
  std::string file_text(const std::string& name, const std::string& path) const {
    std::string text;
    try {
      text = read_confined(name, with_base(), kMaxTemplateBytes);
    } catch (const LegoError& e) {
      fail(path, e.what());
    }
    // A source travels to the worker inside JSON, which holds UTF-8 only.
    if (const std::size_t at = first_non_utf8(text); at != std::string::npos) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[at]));
      fail(path, name + ":" + place_of(text, at) + ": byte " + byte + " is not UTF-8; save the file as UTF-8");
    }
    return text;
  }

 private:
  static std::string located(const std::string& text, const LegoError& e) { return "\n" + format_diagnostic(text, e.diagnostic(), ""); }
  std::vector<std::filesystem::path> with_base() const {
    std::vector<std::filesystem::path> v{base_};
    v.insert(v.end(), dirs_.begin(), dirs_.end());
    return v;
  }

  std::string file_;
  std::filesystem::path base_;
  std::vector<std::filesystem::path> dirs_;
};

// A parser callback that notes the path of the first key an object repeats:
// nlohmann keeps the last value silently, so a project edited by hand could
// mean one thing and say another.
OrderedJson::parser_callback_t duplicate_key_finder(std::string& first) {
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;
    long index = -1;
  };
  auto frames = std::make_shared<std::vector<Frame>>();
  return [frames, &first](int, OrderedJson::parse_event_t event, OrderedJson& parsed) {
    using E = OrderedJson::parse_event_t;
    auto& f = *frames;
    if ((event == E::object_start || event == E::array_start || event == E::value) && !f.empty() && !f.back().object) ++f.back().index;
    if (event == E::object_start || event == E::array_start) f.push_back({event == E::object_start, {}, {}, -1});
    if ((event == E::object_end || event == E::array_end) && !f.empty()) f.pop_back();
    if (event == E::key && !f.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!f.back().keys.insert(key).second && first.empty()) {
        first = "$";
        for (std::size_t k = 0; k + 1 < f.size(); ++k) first += f[k].object ? "." + f[k].key : "[" + std::to_string(f[k].index) + "]";
        first += "." + key;
      }
      f.back().key = key;
    }
    return true;
  };
}

// An integer that fits int64: nlohmann reads 18446744073709551615 as an
// unsigned number, and get<int64_t> would wrap it to -1.
bool is_int64(const OrderedJson& v) {
  return v.is_number_integer() && (!v.is_number_unsigned() || v.get<std::uint64_t>() <= std::uint64_t(INT64_MAX));
}

std::int64_t int64_at(const Reader& r, const OrderedJson& v, const std::string& path) {
  if (!v.is_number_integer()) r.fail(path, "expected an integer");
  if (!is_int64(v)) r.fail(path, "the integer is out of range (at most 9223372036854775807)");
  return v.get<std::int64_t>();
}

// Range values: at most this many, and never past int64 (a range used to wrap
// to negative values, and was cut at 4096 values without a word).
constexpr std::size_t kMaxRangeValues = 4096;

std::vector<std::int64_t> parameter_values(const Reader& r, const OrderedJson& v, const std::string& path) {
  std::vector<std::int64_t> out;
  if (v.is_number_integer()) return {int64_at(r, v, path)};
  if (v.is_array()) {
    for (std::size_t k = 0; k < v.size(); ++k) out.push_back(int64_at(r, v[k], path + "[" + std::to_string(k) + "]"));
  } else if (v.is_object()) {
    // {"from": 8, "to": 64, "times": 2} or {"from": 1, "to": 8, "step": 1}
    auto integer = [&](const char* key) { return int64_at(r, r.member(v, key, path), path + "." + key); };
    const std::int64_t from = integer("from"), to = integer("to");
    const bool geometric = v.contains("times");
    const std::int64_t by = geometric ? integer("times") : v.contains("step") ? integer("step") : 1;
    if (by < (geometric ? 2 : 1)) r.fail(path, geometric ? "\"times\" must be at least 2" : "\"step\" must be at least 1");
    if (from > to) r.fail(path, "\"from\" is greater than \"to\"");
    if (geometric && from < 1) r.fail(path + ".from", "a geometric range starts at 1 or more");
    for (std::int64_t x = from; x <= to;) {
      if (out.size() == kMaxRangeValues)
        r.fail(path, "the range has more than " + std::to_string(kMaxRangeValues) + " values; use a larger step or a list");
      out.push_back(x);
      if (geometric ? __builtin_mul_overflow(x, by, &x) : __builtin_add_overflow(x, by, &x)) break;  // the next would pass int64
    }
  } else {
    r.fail(path, "expected an integer, a list of integers, or {\"from\", \"to\", \"step\" | \"times\"}");
  }
  if (out.empty()) r.fail(path, "no values");
  return out;
}

ElementType element_type(const Reader& r, const std::string& s, const std::string& path) {
  if (s == "float" || s == "f32" || s == "fp32") return ElementType::F32;
  if (s == "double" || s == "f64" || s == "fp64") return ElementType::F64;
  if (s == "int32" || s == "i32" || s == "int32_t") return ElementType::I32;
  if (s == "int64" || s == "i64" || s == "int64_t") return ElementType::I64;
  if (s == "half" || s == "f16" || s == "fp16") return ElementType::F16;
  r.fail(path, "unknown element type \"" + s + "\" (float, double, int32, int64, half)");
}

// How many single-character edits turn a into b: a misspelt field's nearest.
std::size_t edits(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A field this version does not read is refused, not ignored: a misspelt
// "paramters" would otherwise leave every variant without its parameters.
void check_fields(const Reader& r, const OrderedJson& object, std::initializer_list<const char*> known, const std::string& path) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string key = it.key();
    if (std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) continue;
    std::string nearest, all;
    for (const char* k : known) {
      all += (all.empty() ? "" : ", ") + std::string(k);
      if (edits(key, k) <= 2 && (nearest.empty() || edits(key, k) < edits(key, nearest))) nearest = k;
    }
    r.fail(path + "." + key,
           "unknown field" + (nearest.empty() ? std::string() : "; did you mean \"" + nearest + "\"?") + " (known: " + all + ")");
  }
}

KernelSpec kernel_spec(const Reader& r, const OrderedJson& k, const std::string& path) {
  if (!k.is_object()) r.fail(path, "expected a kernel object");
  check_fields(r, k,
               {"name", "description", "backend", "template", "reference", "tensors", "layouts", "parameters", "constraints", "baselines",
                "bytes", "flops", "launch", "register_tile", "tolerance", "verify_at", "vector_loop"},
               path);
  KernelSpec s;
  s.name = r.string_at(k, "name", path);
  r.check_name(s.name, path + ".name");
  s.description = r.optional_string(k, "description", path);
  if (k.contains("backend")) {
    const auto backend = backend_from_text(r.string_at(k, "backend", path));
    if (!backend) r.fail(path + ".backend", "expected \"cpu\", \"cuda\" or \"triton\"");
    s.backend = *backend;
  }
  s.template_name = r.string_at(k, "template", path);
  s.template_text = r.file_text(s.template_name, path + ".template");
  // Python ends a line at a lone carriage return, the engine at \n only: a
  // Triton template with one would have its errors named at the wrong line.
  if (s.backend == Backend::Triton)
    for (std::size_t at = s.template_text.find('\r'); at != std::string::npos; at = s.template_text.find('\r', at + 1))
      if (at + 1 == s.template_text.size() || s.template_text[at + 1] != '\n')
        r.fail(path + ".template", s.template_name + ":" + place_of(s.template_text, at) +
                                       ": a carriage return not followed by a line feed; Python reads it as a line break");
  s.reference_name = r.string_at(k, "reference", path);
  s.reference_text = r.file_text(s.reference_name, path + ".reference");

  std::set<std::string> names;
  auto unique = [&](const std::string& name, const std::string& p) {
    if (!names.insert(name).second) r.fail(p, "\"" + name + "\" is defined twice (tensors, layouts and parameters share one namespace)");
  };
  const OrderedJson& tensors = r.member(k, "tensors", path);
  if (!tensors.is_array() || tensors.empty()) r.fail(path + ".tensors", "expected a non-empty list of tensors");
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    const std::string tp = path + ".tensors[" + std::to_string(t) + "]";
    const OrderedJson& tj = tensors[t];
    if (!tj.is_object()) r.fail(tp, "expected a tensor object");
    check_fields(r, tj, {"name", "type", "role", "extents", "layouts"}, tp);
    TensorSpec ts;
    ts.name = r.string_at(tj, "name", tp);
    r.check_name(ts.name, tp + ".name");
    unique(ts.name, tp + ".name");
    ts.type = element_type(r, tj.contains("type") ? r.string_at(tj, "type", tp) : "float", tp + ".type");
    if (tj.contains("role")) {
      const auto role = role_from_text(r.string_at(tj, "role", tp));
      if (!role) r.fail(tp + ".role", "expected \"in\", \"out\" or \"inout\"");
      ts.role = *role;
    }
    const OrderedJson& ex = r.member(tj, "extents", tp);
    if (!ex.is_array() || ex.empty()) r.fail(tp + ".extents", "expected a non-empty list of extents");
    for (std::size_t e = 0; e < ex.size(); ++e) {
      const std::string ep = tp + ".extents[" + std::to_string(e) + "]";
      if (ex[e].is_number_integer())
        ts.extents.push_back(constant(int64_at(r, ex[e], ep)));
      else if (ex[e].is_string())
        ts.extents.push_back(r.expression(ex[e].get<std::string>(), ep));
      else
        r.fail(ep, "expected an integer or an expression over the parameters");
    }
    ts.layouts = r.alternatives(r.member(tj, "layouts", tp), tp + ".layouts");
    s.tensors.push_back(std::move(ts));
  }
  if (k.contains("layouts")) {
    const OrderedJson& ls = k.at("layouts");
    if (!ls.is_object()) r.fail(path + ".layouts", "expected an object of named layouts");
    for (const auto& [name, value] : ls.items()) {
      r.check_name(name, path + ".layouts." + name);
      unique(name, path + ".layouts." + name);
      s.layouts.push_back({name, r.alternatives(value, path + ".layouts." + name)});
    }
  }
  if (k.contains("parameters")) {
    const OrderedJson& ps = k.at("parameters");
    if (!ps.is_object()) r.fail(path + ".parameters", "expected an object: name -> values");
    for (const auto& [name, value] : ps.items()) {
      r.check_name(name, path + ".parameters." + name);
      unique(name, path + ".parameters." + name);
      s.parameters.push_back({name, parameter_values(r, value, path + ".parameters." + name)});
    }
  }
  if (k.contains("baselines")) {
    // "name": "file.cpp"  or  "name": {"source": "file.cpp", "library": "openblas"}
    const OrderedJson& bs = k.at("baselines");
    if (!bs.is_object()) r.fail(path + ".baselines", "expected an object: name -> source file or {\"source\", \"library\"}");
    for (const auto& [name, value] : bs.items()) {
      const std::string bp = path + ".baselines." + name;
      r.check_name(name, bp);
      Baseline b;
      b.name = name;
      if (value.is_string()) {
        b.source_name = value.get<std::string>();
      } else if (value.is_object()) {
        check_fields(r, value, {"source", "library", "verify", "bytes", "flops"}, bp);
        b.source_name = r.string_at(value, "source", bp);
        b.library = r.optional_string(value, "library", bp);
        if (!b.library.empty() && b.library != "openblas" && b.library != "blis" && b.library != "torch")
          r.fail(bp + ".library", "unknown library \"" + b.library + "\" (openblas, blis; torch for a Triton kernel)");
        if (value.contains("verify")) {
          if (!value.at("verify").is_boolean()) r.fail(bp + ".verify", "expected true or false");
          b.verify = value.at("verify").get<bool>();
        }
        // Its own traffic and arithmetic, where they are not the kernel's (a copy's bytes, no FLOPs).
        if (value.contains("bytes")) {
          b.bytes_text = r.string_at(value, "bytes", bp);
          b.bytes = r.expression(b.bytes_text, bp + ".bytes");
        }
        if (value.contains("flops")) {
          b.flops_text = r.string_at(value, "flops", bp);
          b.flops = r.expression(b.flops_text, bp + ".flops");
        }
      } else {
        r.fail(bp, "expected a source file name or {\"source\", \"library\"}");
      }
      b.source_text = r.file_text(b.source_name, bp + (value.is_string() ? "" : ".source"));
      // A Triton kernel is compared with PyTorch on a GPU (the bench bundle
      // times it there); C++ baselines are for C++ kernels.
      if ((s.backend == Backend::Triton) != (b.library == "torch"))
        r.fail(bp + (value.is_string() ? "" : ".library"), s.backend == Backend::Triton
                                                               ? "a Triton kernel's baseline is PyTorch: {\"source\": \"file.py\", "
                                                                 "\"library\": \"torch\"}, timed by lego export-bench's bundle on a GPU"
                                                               : "\"torch\" baselines are for Triton kernels");
      s.baselines.push_back(std::move(b));
    }
  }
  if (k.contains("verify_at")) {
    const OrderedJson& va = k.at("verify_at");
    if (!va.is_object()) r.fail(path + ".verify_at", "expected an object: parameter -> the value to verify at");
    for (const auto& [name, value] : va.items()) {
      const std::string vp = path + ".verify_at." + name;
      if (std::none_of(s.parameters.begin(), s.parameters.end(), [&name = name](const Parameter& p) { return p.name == name; }))
        r.fail(vp, "\"" + name + "\" is not a parameter of this kernel");
      if (int64_at(r, value, vp) < 1) r.fail(vp, "expected a positive integer");
      s.verify_at[name] = value.get<std::int64_t>();
    }
  }
  if (k.contains("constraints")) {
    const OrderedJson& cs = k.at("constraints");
    if (!cs.is_array()) r.fail(path + ".constraints", "expected a list of conditions such as \"N % T == 0\"");
    for (std::size_t c = 0; c < cs.size(); ++c) {
      const std::string cp = path + ".constraints[" + std::to_string(c) + "]";
      if (!cs[c].is_string()) r.fail(cp, "expected a condition as a string");
      s.constraints.push_back({cs[c].get<std::string>(), r.expression(cs[c].get<std::string>(), cp)});
    }
  }
  s.flops = k.contains("flops") ? r.expression(r.string_at(k, "flops", path), path + ".flops") : constant(0);
  s.bytes = k.contains("bytes") ? r.expression(r.string_at(k, "bytes", path), path + ".bytes") : constant(0);
  if (k.contains("tolerance")) {
    // A wide tolerance passes wrong results as verified: at most 0.1
    // (10 % relative), enough for reduced precision, and shown in the table.
    if (!k.at("tolerance").is_number() || !(k.at("tolerance").get<double>() >= 0) || k.at("tolerance").get<double>() > 0.1)
      r.fail(path + ".tolerance", "expected a number from 0 (the element type's default) to 0.1");
    s.tolerance = k.at("tolerance").get<double>();
  }
  if (k.contains("register_tile")) {
    // {"rows": "BM", "columns": "BN", "type": "float"}
    const std::string rp = path + ".register_tile";
    const OrderedJson& rt = k.at("register_tile");
    if (!rt.is_object()) r.fail(rp, "expected {\"rows\": EXPR, \"columns\": EXPR, \"type\": \"float\"}");
    RegisterTile tile;
    tile.rows_text = r.string_at(rt, "rows", rp);
    tile.columns_text = r.string_at(rt, "columns", rp);
    tile.rows = r.expression(tile.rows_text, rp + ".rows");
    tile.columns = r.expression(tile.columns_text, rp + ".columns");
    if (rt.contains("type")) tile.type = element_type(r, r.string_at(rt, "type", rp), rp + ".type");
    s.register_tile = std::move(tile);
  }
  if (k.contains("vector_loop")) {
    // {"trip": "BS", "reduction": true, "along": {"X": 1, "Y": 1}} or {"along": {"H": [1, -1]}}
    const std::string vp = path + ".vector_loop";
    const OrderedJson& vl = k.at("vector_loop");
    if (!vl.is_object()) r.fail(vp, "expected {\"trip\": EXPR, \"along\": {\"TENSOR\": INDEX, ...}}");
    if (s.backend != Backend::Cpu) r.fail(vp, "a CPU kernel's loop a compiler vectorizes; a CUDA kernel's lanes are its threads");
    check_fields(r, vl, {"trip", "along", "reduction"}, vp);
    VectorLoop loop;
    if (vl.contains("reduction")) {
      if (!vl.at("reduction").is_boolean()) r.fail(vp + ".reduction", "expected true (each entry sums across its lanes) or false");
      loop.reduction = vl.at("reduction").get<bool>();
      // Its cost is an iteration per entry of `trip` lanes: without a trip it would say nothing.
      if (loop.reduction && !vl.contains("trip")) r.fail(vp + ".reduction", "a reduction's cost is per entry: give the loop's \"trip\"");
    }
    if (vl.contains("trip")) {
      loop.trip_text = r.string_at(vl, "trip", vp);
      loop.trip = r.expression(loop.trip_text, vp + ".trip");
      // Nothing runs the trip (the prior only reads it): a name it cannot evaluate is said here, not ignored.
      std::set<std::string> trip_names;
      collect_symbols(*loop.trip, trip_names);
      for (const std::string& n : trip_names)
        if (n != "VECTOR_BYTES" && n != "VECTOR_REGISTERS" &&
            std::none_of(s.parameters.begin(), s.parameters.end(), [&](const Parameter& p) { return p.name == n; }))
          r.fail(vp + ".trip", "\"" + n + "\" is not a parameter of this kernel");
    }
    const OrderedJson& along = r.member(vl, "along", vp);
    if (!along.is_object() || along.empty())
      r.fail(vp + ".along", "expected {\"TENSOR\": INDEX or [STEP, ...], ...}: where the loop goes next in each");
    // An integer JSON holds as an int64, in [lo, hi] (nlohmann reads 2^64 - 1 as unsigned, which get<int64_t> wraps to -1).
    const auto integer_in = [](const OrderedJson& v, std::int64_t lo, std::int64_t hi) {
      return v.is_number_integer() && is_int64(v) && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
    };
    for (const auto& [name, walk] : along.items()) {
      const std::string ap = vp + ".along." + name;
      // A tensor's indices are its extents. A named layout's rank is its alternatives', known when a variant binds
      // them: a walk whose rank differs from an alternative's says nothing of it in the prior.
      constexpr std::int64_t kMostIndices = 64;
      std::int64_t rank = kMostIndices;
      bool known = false, tensor = false;
      for (const auto& t : s.tensors)
        if (t.name == name) known = tensor = true, rank = static_cast<std::int64_t>(t.extents.size());
      for (const auto& l : s.layouts)
        if (l.name == name) known = true;
      if (!known) r.fail(ap, "not a tensor or layout of this kernel");
      VectorWalk w{name, 0, {}};
      if (walk.is_array()) {
        bool moves = false;
        for (std::size_t d = 0; d < walk.size(); ++d) {
          if (!integer_in(walk[d], -1024, 1024)) r.fail(ap + "[" + std::to_string(d) + "]", "expected a step from -1024 to 1024");
          w.step.push_back(walk[d].get<std::int64_t>());
          moves |= w.step.back() != 0;
        }
        if (!moves || static_cast<std::int64_t>(walk.size()) > rank || (tensor && static_cast<std::int64_t>(walk.size()) != rank))
          r.fail(ap, "expected a step in each of its " + (tensor ? std::to_string(rank) + " " : std::string()) + "indices, not all 0");
      } else {
        if (!integer_in(walk, 0, rank - 1))
          r.fail(ap, "expected the index position the loop walks, 0 to " + std::to_string(rank - 1) + ", or a step in each index");
        w.index = static_cast<std::size_t>(walk.get<std::int64_t>());
      }
      loop.along.push_back(std::move(w));
    }
    s.vector_loop = std::move(loop);
  }
  if (s.backend == Backend::Cuda) {
    const OrderedJson& launch = r.member(k, "launch", path);
    for (const char* what : {"grid", "block"}) {
      const std::string lp = path + ".launch." + what;
      const OrderedJson& dims = r.member(launch, what, path + ".launch");
      if (!dims.is_array() || dims.empty() || dims.size() > 3) r.fail(lp, "expected 1 to 3 extents (x, y, z)");
      auto& out = std::string(what) == "grid" ? s.grid : s.block;
      for (std::size_t d = 0; d < dims.size(); ++d) {
        const std::string dp = lp + "[" + std::to_string(d) + "]";
        if (dims[d].is_number_integer())
          out.push_back(constant(int64_at(r, dims[d], dp)));
        else if (dims[d].is_string())
          out.push_back(r.expression(dims[d].get<std::string>(), dp));
        else
          r.fail(dp, "expected an integer or an expression over the parameters");
      }
    }
  }
  return s;
}

}  // namespace

Project parse_project(const std::string& json_text, const std::string& file_label, const std::filesystem::path& base_dir,
                      const std::vector<std::filesystem::path>& resource_dirs) {
  const Reader r(file_label, base_dir, resource_dirs);
  OrderedJson j;
  std::string duplicate;  // the JSON path of the first repeated key
  if (const std::string problem = json_limit_problem(json_text); !problem.empty()) r.fail("$", "not valid JSON at " + problem);
  try {
    j = OrderedJson::parse(json_text, duplicate_key_finder(duplicate));
  } catch (const OrderedJson::parse_error& e) {
    const LineColumn at = line_column(json_text, e.byte > 0 ? e.byte - 1 : 0);
    r.fail("$", "not valid JSON at line " + std::to_string(at.line) + ", column " + std::to_string(at.column) + ": " + e.what());
  }
  if (!duplicate.empty()) r.fail(duplicate, "this key appears twice in its object; keep one (JSON keeps the last silently)");
  if (!j.is_object()) r.fail("$", "expected a project object");
  if (!j.contains("lego_studio_project")) r.fail("$", "missing \"lego_studio_project\" (the schema version, 1)");
  const OrderedJson& version_json = j.at("lego_studio_project");
  if (!is_int64(version_json) || version_json.get<std::int64_t>() < 1)
    r.fail("$.lego_studio_project", "expected the schema version, a positive integer");
  const std::int64_t version = version_json.get<std::int64_t>();
  if (version > Project::kSchemaVersion)
    r.fail("$.lego_studio_project", "schema version " + std::to_string(version) + " is newer than this build reads (" +
                                        std::to_string(Project::kSchemaVersion) + "); update LEGO Studio");
  Project p;
  p.name = j.contains("name") ? r.string_at(j, "name", "$") : file_label;
  p.description = r.optional_string(j, "description", "$");
  p.target = r.optional_string(j, "target", "$");
  if (!p.target.empty()) {
    try {
      target::resolve(p.target);  // its message lists the known names
    } catch (const LegoError& e) {
      r.fail("$.target", e.what());
    }
  }
  const OrderedJson& kernels = r.member(j, "kernels", "$");
  if (!kernels.is_array()) r.fail("$.kernels", "expected a list of kernels");
  std::set<std::string> names;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const std::string kp = "$.kernels[" + std::to_string(k) + "]";
    p.kernels.push_back(kernel_spec(r, kernels[k], kp));
    if (!names.insert(p.kernels.back().name).second) r.fail(kp + ".name", "two kernels are named \"" + p.kernels.back().name + "\"");
  }
  return p;
}

std::string read_text_file(const std::filesystem::path& file, const std::string& what) {
  return read_regular_file(file, what.empty() ? "file" : what, kMaxProjectBytes);
}

Project load_project(const std::filesystem::path& file, const std::vector<std::filesystem::path>& resource_dirs) {
  const std::string text = read_text_file(file, "project file");
  return parse_project(text, file.string(), project_folder(file), resource_dirs);
}

std::filesystem::path project_folder(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(file, ec);
  const std::filesystem::path base = ec ? file.parent_path() : real.parent_path();
  return base.empty() ? "." : base;
}

const KernelSpec& find_kernel(const Project& project, const std::string& name) {
  if (name.empty() && project.kernels.size() == 1) return project.kernels[0];
  for (const auto& k : project.kernels)
    if (!name.empty() && k.name == name) return k;
  std::string names;
  for (const auto& k : project.kernels) names += " " + k.name;
  if (name.empty())
    throw LegoError("the project has " + std::to_string(project.kernels.size()) + " kernels; choose one with --kernel:" + names);
  throw LegoError("no kernel named \"" + name + "\" in the project; it has:" + names);
}

std::vector<std::filesystem::path> default_resource_dirs() {
  if (const char* env = std::getenv("LEGO_RESOURCES")) return {std::filesystem::path(env) / "templates"};
  return {std::filesystem::path(LEGO_RESOURCE_DIR) / "templates"};
}

}  // namespace lego::kernel
