#include "kernel/variant.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <numeric>
#include <random>
#include <set>

#include "kernel/variant_space.hpp"

namespace lego::kernel {
namespace {}  // namespace

VariantSpace enumerate_variants(const KernelSpec& spec, const SearchOptions& options) {
  const std::vector<Axis> axes = axes_of(spec, options.overrides);
  VariantSpace space;
  space.candidates = 1;
  for (const auto& a : axes) {
    if (space.candidates > (std::uint64_t{1} << 40) / a.size())
      throw LegoError("the variant space has more than 2^40 candidates; narrow it");
    space.candidates *= a.size();
  }
  // Spaces up to kMaxEnumerated candidates are listed whole; a larger one is
  // sampled when a budget is given and refused otherwise (30 two-valued
  // parameters once asked for 2^30 indices and died of bad_alloc).
  constexpr std::uint64_t kMaxEnumerated = std::uint64_t{1} << 20;
  std::vector<std::uint64_t> order;
  if (space.candidates <= kMaxEnumerated) {
    order.resize(space.candidates);
    std::iota(order.begin(), order.end(), 0);
  } else if (options.max_variants == 0) {
    throw LegoError("the variant space has " + std::to_string(space.candidates) + " candidates, more than the " +
                    std::to_string(kMaxEnumerated) + " listed at once; sample it (--max-variants N) or narrow the parameters");
  } else {
    // Sample without enumerating a huge space: draw distinct indices (4x the budget, to survive the constraints).
    std::mt19937_64 rng(options.seed);
    std::uniform_int_distribution<std::uint64_t> pick(0, space.candidates - 1);
    std::set<std::uint64_t> drawn;
    const std::uint64_t wanted = std::min<std::uint64_t>({options.max_variants * 4, kMaxEnumerated * 4, space.candidates / 2});
    while (drawn.size() < wanted) drawn.insert(pick(rng));
    order.assign(drawn.begin(), drawn.end());
  }
  std::vector<Variant> valid;
  for (const std::uint64_t index : order) {
    Variant v = make_variant(axes, index);
    if (!satisfies(spec, v)) {
      ++space.rejected;
    } else if (!has_parts(v.id, options.only)) {
      ++space.left_out;  // before the target, so that the example it rules out is one asked for
    } else if (const std::string why = options.target ? ruled_out_by(spec, v.parameters, *options.target) : std::string(); !why.empty()) {
      if (space.ruled_out++ == 0) space.ruled_out_reason = v.id + ": " + why;
    } else {
      valid.push_back(std::move(v));
    }
  }
  if (options.max_variants != 0 && valid.size() > options.max_variants) {
    std::mt19937_64 rng(options.seed);
    std::shuffle(valid.begin(), valid.end(), rng);
    valid.resize(options.max_variants);
    std::sort(valid.begin(), valid.end(), [](const Variant& a, const Variant& b) { return a.id < b.id; });
    space.sampled = true;
  }
  space.variants = std::move(valid);
  return space;
}

target::Target target_for(const Project& project, const std::string& chosen) {
  return target::resolve(!chosen.empty() ? chosen : !project.target.empty() ? project.target : "host");
}

Env with_target(const Env& parameters, const target::Target& t) {
  Env env = parameters;
  env.emplace("VECTOR_BYTES", t.vector_bytes);
  env.emplace("VECTOR_REGISTERS", t.vector_registers);
  return env;
}

std::string ruled_out_by(const KernelSpec& spec, const Env& parameters, const target::Target& t) {
  if (spec.backend != Backend::Cpu) return "";
  std::string missing;
  for (const auto& need : target::required_features(spec.template_text))
    if (!t.has(need.feature))
      missing += (missing.empty() ? "" : "; ") + need.feature + " (" + spec.template_name + " " + need.evidence + ")";
  if (!missing.empty()) return "ruled out for " + t.name + " (" + t.level() + "): it lacks " + missing;
  if (!spec.register_tile) return "";
  const RegisterTile& tile = *spec.register_tile;
  const Env env = with_target(parameters, t);
  std::int64_t rows = 0, columns = 0;
  // A tile that is no tile is the project's error, not the target's.
  try {
    rows = evaluate(tile.rows, env);
    columns = evaluate(tile.columns, env);
  } catch (const LegoError& e) {
    throw LegoError("kernel " + spec.name + ": register_tile: " + e.what());
  }
  constexpr std::int64_t kLargest = std::int64_t{1} << 20;
  if (rows < 1 || columns < 1 || rows > kLargest || columns > kLargest)
    throw LegoError("kernel " + spec.name + ": register_tile " + tile.rows_text + " x " + tile.columns_text + " is " +
                    std::to_string(rows) + " x " + std::to_string(columns) + "; both must be between 1 and " + std::to_string(kLargest));
  const std::int64_t lanes = t.lanes(static_cast<int>(element_bytes(tile.type)));
  const std::string size = std::to_string(rows) + " x " + std::to_string(columns);
  if (lanes < 1 || columns % lanes != 0)
    return "ruled out for " + t.name + ": the " + size + " register tile's " + tile.columns_text + " = " + std::to_string(columns) +
           " is not a multiple of its " + std::to_string(lanes) + " " + c_type(tile.type) + " vector lanes";
  // Accumulators, one row of vectors loaded per step, and one broadcast.
  const std::int64_t vectors = columns / lanes, needed = rows * vectors + vectors + 1;
  if (needed > t.vector_registers)
    return "ruled out for " + t.name + ": the " + size + " register tile needs " + std::to_string(rows * vectors) + " accumulators + " +
           std::to_string(vectors) + " loaded vectors + 1 broadcast = " + std::to_string(needed) + " vector registers; it has " +
           std::to_string(t.vector_registers) + " of " + std::to_string(t.vector_bytes) + " bytes";
  return "";
}

namespace {

// An id's "name=value" items, in its order.
std::vector<std::string> items_of(const std::string& id) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= id.size();) {
    const std::size_t comma = std::min(id.find(',', start), id.size());
    items.push_back(id.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

// The items sorted: ids that name the same choices in another order are the same variant.
std::vector<std::string> id_items(const std::string& id) {
  std::vector<std::string> items = items_of(id);
  std::sort(items.begin(), items.end());
  return items;
}

std::size_t items_in_common(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both.size();
}

}  // namespace

Variant find_variant(const KernelSpec& spec, const std::string& id, const Env& overrides) {
  const VariantSpace space = enumerate_variants(spec, {0, 1, overrides});
  const std::vector<std::string> asked = id_items(id);
  for (const auto& v : space.variants)
    if (id_items(v.id) == asked) return v;
  // The closest: the most of the asked choices in common, in the space's order among equals.
  std::vector<std::pair<std::size_t, std::size_t>> closest;  // (choices in common, position)
  for (std::size_t k = 0; k < space.variants.size(); ++k) closest.emplace_back(items_in_common(asked, id_items(space.variants[k].id)), k);
  std::stable_sort(closest.begin(), closest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string some;
  for (std::size_t k = 0; k < closest.size() && k < 5; ++k) some += "\n  " + space.variants[closest[k].second].id;
  throw LegoError("no variant \"" + id + "\" in kernel " + spec.name + " (" + std::to_string(space.variants.size()) +
                  " valid); the closest:" + some);
}

std::optional<Env> parameters_named_in(const KernelSpec& spec, const std::string& id) {
  Env named;
  for (const std::string& item : items_of(id)) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    for (const auto& p : spec.parameters)
      if (p.name == key) {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
        named[key] = v;
      }
  }
  return named;
}

bool names_a_variant(const KernelSpec& spec, const std::string& id) {
  const std::optional<Env> overrides = parameters_named_in(spec, id);
  if (!overrides) return false;
  try {
    const VariantSpace space = enumerate_variants(spec, {0, 1, *overrides});
    return std::any_of(space.variants.begin(), space.variants.end(), [&](const Variant& v) { return v.id == id; });
  } catch (const LegoError&) {
    return false;  // e.g. a parameter value a constraint cannot evaluate
  }
}

namespace {
std::string env_text(const Env& env) {
  std::string text;
  for (const auto& [name, value] : env) text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text;
}
}  // namespace

std::string why_no_variant(const KernelSpec& spec_in, const target::Target& target, const Env& overrides) {
  KernelSpec spec = spec_in;
  for (auto& p : spec.parameters)
    if (const auto it = overrides.find(p.name); it != overrides.end()) p.values = {it->second};
  VariantSpace space;
  try {
    space = enumerate_variants(spec, {1, 1, {}, &target});
  } catch (const LegoError& e) {
    return e.what();  // a constraint that divides by zero, a space too large to list
  }
  if (!space.variants.empty()) return "";
  if (space.rejected == 0 && space.ruled_out > 0)
    return "the target rules out every variant at these sizes, e.g. " + space.ruled_out_reason;
  // Which constraint no combination of the values meets, with one that fails it.
  std::vector<std::size_t> met(spec.constraints.size());
  std::vector<Env> failing(spec.constraints.size());
  std::size_t combinations = 1;
  for (const auto& p : spec.parameters) combinations *= p.values.size();
  for (std::size_t index = 0; index < std::min<std::size_t>(combinations, 1 << 16); ++index) {
    Env env;
    std::size_t rest = index;
    for (const auto& p : spec.parameters) {
      env[p.name] = p.values[rest % p.values.size()];
      rest /= p.values.size();
    }
    for (std::size_t c = 0; c < spec.constraints.size(); ++c) {
      bool holds = false;
      try {
        holds = evaluate(spec.constraints[c].expr, env) != 0;
      } catch (const LegoError&) {
        // Undefined here (T == 0 in N % T): an earlier constraint rules it out, so it is not met.
      }
      if (holds)
        ++met[c];
      else if (failing[c].empty())
        failing[c] = env;
    }
  }
  for (std::size_t c = 0; c < spec.constraints.size(); ++c)
    if (met[c] == 0) return spec.constraints[c].text + " holds for none of these values (e.g. " + env_text(failing[c]) + ")";
  std::string all;
  for (const auto& c : spec.constraints) all += (all.empty() ? "" : "; ") + c.text;
  return "no combination of these values meets every constraint at once (" + all + ")";
}

}  // namespace lego::kernel
