#include "kernel/index_code.hpp"

#include <cctype>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

#include "layout/make_plan.hpp"
#include "layout/untiled_view.hpp"
#include "poly/isl_runs.hpp"

namespace lego::kernel {
namespace {

const NamedView& named_view(const IndexContext& c, const std::string& name) {
  if (const NamedView* v = c.binding.view(name)) return *v;
  throw LegoError("\"" + name + "\" is not a tensor or layout of kernel " + c.spec.name + " (it has:" + c.binding.names() + ")");
}

// `results`: for inv, the number of names declared (the coordinates wanted).
DeriveResult derive_at(const IndexContext& c, const std::string& layout, const std::vector<std::string>& indices, bool inverse,
                       std::size_t results = 0) {
  const NamedView& v = named_view(c, layout);
  DeriveRequest request;
  request.inverse = inverse;
  request.indices = indices;
  request.lang = c.lang;
  request.strength_reduce = true;
  if (!inverse) define_nest_indices(c.nests, indices, request);
  // A TileBy layout read with as many coordinates as one tile level has: its untiled view.
  const std::size_t coordinates = inverse ? results : indices.size();
  const bool untiled = coordinates != 0 && coordinates != logical_rank(v.ast);
  if (untiled && v.ast.closing != Closing::TileBy)
    throw LegoError(layout + " takes " + std::to_string(logical_rank(v.ast)) + " indices, got " + std::to_string(coordinates));
  LayoutAst view = v.ast;
  if (untiled) {
    try {
      view = untiled_view(v.ast, coordinates);
    } catch (const LegoError& e) {
      if (!inverse) throw LegoError(v.where + ": " + e.what());
      // The untiled view's rule speaks of tensors; an inverse's mistake is the number of names.
      throw LegoError(layout + ".inv declares " + std::to_string(coordinates) + " name(s), and " + layout + "'s inverse gives " +
                      std::to_string(logical_rank(v.ast)) + " coordinates (" + v.where + ")");
    }
  }
  try {
    return derive(view, c.parameters, request);
  } catch (const LegoError& e) {
    throw LegoError(v.where + ": " + e.what());
  }
}

std::map<std::string, std::string> temporaries(const DeriveResult& r, std::size_t ordinal) {
  std::map<std::string, std::string> names;
  for (const auto& [name, e] : r.temporaries) names[name] = "lego_" + std::to_string(ordinal) + "_" + name;
  return names;
}

// Every identifier token of `code` found in `names` renamed.
std::string rename(const std::string& code, const std::map<std::string, std::string>& names) {
  std::string out;
  const auto identifier_char = [&](std::size_t k) { return std::isalnum(static_cast<unsigned char>(code[k])) || code[k] == '_'; };
  for (std::size_t k = 0; k < code.size();) {
    if (std::isalpha(static_cast<unsigned char>(code[k])) || code[k] == '_') {
      std::size_t e = k;
      while (e < code.size() && identifier_char(e)) ++e;
      const std::string id = code.substr(k, e - k);
      auto it = names.find(id);
      out += it == names.end() ? id : it->second;
      k = e;
    } else {
      out += code[k++];
    }
  }
  return out;
}

// Triton: Python has no block expression, so each shared subexpression is
// written out where it is used (Triton's compiler shares them again).
std::string inlined(const std::string& code, const DeriveResult& r) {
  std::map<std::string, std::string> values;
  for (const auto& [t, e] : r.temporaries) values[t] = "(" + rename(e, values) + ")";
  return rename(code, values);
}

std::string declarations(const DeriveResult& r, const std::map<std::string, std::string>& temps) {
  std::string code;
  for (const auto& [t, e] : r.temporaries) code += "const " + r.index_type + " " + temps.at(t) + " = " + rename(e, temps) + "; ";
  return code;
}

// NAME and index position d of run(d) and stride(d): the layout as its
// indices read it (a tensor is indexed by its extents, so a TileBy layout
// is read through its untiled view, as A[i, j] reads it).
LayoutAst indexed_view(const IndexContext& c, const std::string& name, std::size_t dimension, const std::string& what) {
  const NamedView& v = named_view(c, name);
  std::size_t rank = logical_rank(v.ast);
  if (const BoundTensor* t = c.binding.tensor(name)) rank = t->extents.size();
  if (dimension >= rank)
    throw LegoError(name + " has " + std::to_string(rank) + " indices; " + what + "(" + std::to_string(dimension) + ") is past them");
  try {
    return rank != logical_rank(v.ast) && v.ast.closing == Closing::TileBy ? untiled_view(v.ast, rank) : v.ast;
  } catch (const LegoError& e) {
    throw LegoError(v.where + ": " + e.what());
  }
}

Plan plan_of(const LayoutAst& view, const Env& parameters, const std::string& where) {
  try {
    return make_plan(view, parameters);
  } catch (const LegoError& e) {
    throw LegoError(where + ": " + e.what());
  }
}

}  // namespace

IndexCode access_index(const IndexContext& c, const placeholder::Access& access, std::size_t ordinal) {
  IndexCode out;
  out.derived = derive_at(c, access.name, access.indices, false);
  const auto temps = temporaries(out.derived, ordinal);
  if (c.lang == sym::Lang::Triton)
    out.code = "(" + inlined(out.derived.exprs.at(0), out.derived) + ")";
  else if (out.derived.temporaries.empty())
    out.code = "(" + out.derived.exprs.at(0) + ")";
  else
    out.code = "([&]() -> int64_t { " + declarations(out.derived, temps) + "return " + rename(out.derived.exprs.at(0), temps) + "; }())";
  out.ops = out.derived.ops;
  return out;
}

IndexCode inverse_declarations(const IndexContext& c, const std::string& layout, const std::vector<std::string>& indices,
                               const std::vector<std::string>& names, std::size_t ordinal) {
  IndexCode out;
  out.derived = derive_at(c, layout, indices, true, names.size());
  const DeriveResult& r = out.derived;
  if (r.exprs.size() != names.size())
    throw LegoError(layout + ".inv gives " + std::to_string(r.exprs.size()) + " coordinates but " + std::to_string(names.size()) +
                    " names are declared");
  const auto temps = temporaries(r, ordinal);
  if (c.lang == sym::Lang::Triton) {  // Python statements on the placeholder's one line
    for (std::size_t k = 0; k < names.size(); ++k) out.code += (k ? "; " : "") + names[k] + " = " + inlined(r.exprs[k], r);
    out.ops = r.ops;
    return out;
  }
  out.code = declarations(r, temps);
  for (std::size_t k = 0; k < names.size(); ++k)
    out.code += "const int64_t " + names[k] + " = " + rename(r.exprs[k], temps) + ";" + (k + 1 < names.size() ? " " : "");
  out.ops = r.ops;
  return out;
}

std::int64_t storage_size(const IndexContext& c, const std::string& name) {
  if (const BoundTensor* t = c.binding.tensor(name)) return t->elements;
  const NamedView* v = c.binding.view(name);
  if (!v) throw LegoError("\"" + name + "\" is not a tensor or layout of kernel " + c.spec.name);
  return plan_of(v->ast, c.parameters, v->where).physical_size();
}

namespace {

// The runs ISL proved, per layout, the values of the parameters it names
// and the dimension: a sweep asks every variant the same question, and a
// layout ISL struggles with pays its operation quota each time (a 2048^2
// Z-order layout took 5 s a question). Bounded: cleared when full.
poly::RunProof memoized_runs(const LayoutAst& view, const Env& parameters, std::size_t dimension) {
  static std::mutex mutex;
  static std::map<std::string, poly::RunProof> proved;
  const std::string text = print(view);
  std::string key = text + "|" + std::to_string(dimension);
  // Every parameter the layout's text names, a lambda's body included.
  for (const std::string& name : identifiers_in(text))
    if (const auto it = parameters.find(name); it != parameters.end()) key += "|" + name + "=" + std::to_string(it->second);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = proved.find(key); it != proved.end()) return it->second;
  }
  poly::RunProof proof = poly::prove_runs(view, parameters, dimension, std::numeric_limits<std::int64_t>::max());
  const std::lock_guard<std::mutex> lock(mutex);
  if (proved.size() >= 4096) proved.clear();
  proved.emplace(std::move(key), proof);
  return proof;
}

}  // namespace

std::int64_t proved_run(const IndexContext& c, const placeholder::Run& run, std::vector<std::string>& notes) {
  const LayoutAst view = indexed_view(c, run.name, run.dimension, "run");
  try {
    const poly::RunProof proof = memoized_runs(view, c.parameters, run.dimension);
    notes.push_back(run.name + ".run(" + std::to_string(run.dimension) + ") = " + std::to_string(proof.run) + ": " + proof.evidence);
    return proof.run;
  } catch (const LegoError& e) {
    throw LegoError(named_view(c, run.name).where + ": " + e.what());
  }
}

std::int64_t constant_stride(const IndexContext& c, const placeholder::Stride& stride, std::vector<std::string>& notes) {
  const std::string& where = named_view(c, stride.name).where;
  const std::size_t dimension = stride.dimension;
  const Plan plan = plan_of(indexed_view(c, stride.name, dimension, "stride"), c.parameters, where);
  const auto& shape = plan.shape();
  if (shape[dimension] < 2) return 0;  // no neighbours along it
  if (plan.size() > (std::int64_t{1} << 28))
    throw LegoError(where + ": " + std::to_string(plan.size()) + " elements are too many to check a stride at every index (2^28 at most)");
  std::vector<std::int64_t> table(static_cast<std::size_t>(plan.size()));
  plan.apply_all(table.data());
  std::int64_t step = 1;  // row-major logical order: the distance between neighbours along `dimension`
  for (std::size_t d = dimension + 1; d < shape.size(); ++d) step *= shape[d];
  std::optional<std::int64_t> found;
  std::int64_t first = 0;
  for (std::int64_t k = 0; k < plan.size(); ++k) {
    if ((k / step) % shape[dimension] == shape[dimension] - 1) continue;  // the last along it has no next
    const std::int64_t s = table[k + step] - table[k];
    if (!found) {
      found = s;
      first = k;
    } else if (s != *found) {
      throw LegoError(where + ": its stride along index " + std::to_string(dimension) + " is not constant (" + std::to_string(*found) +
                      " at logical position " + std::to_string(first) + ", " + std::to_string(s) + " at " + std::to_string(k) +
                      "); use the index expression instead");
    }
  }
  notes.push_back(stride.name + ".stride(" + std::to_string(dimension) + ") = " + std::to_string(*found) + ": the same at every index");
  return *found;
}

}  // namespace lego::kernel
