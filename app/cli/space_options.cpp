#include "space_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "bindings.hpp"
#include "expr/diagnostic.hpp"

namespace lego::cli {
namespace {

// A parameter's values with --set applied: the one it was set to, or its own.
std::vector<std::int64_t> values_of(const kernel::Parameter& p, const Env& sets) {
  if (const auto it = sets.find(p.name); it != sets.end()) return {it->second};
  return p.values;
}

std::string joined(const std::vector<std::int64_t>& values) {
  std::string out;
  for (const std::int64_t v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

}  // namespace

std::vector<std::string> check_only(const kernel::KernelSpec& spec, const std::vector<std::string>& only, const Env& sets) {
  std::vector<std::string> kept;
  for (const auto& o : only) {
    kept.push_back(o);
    if (o.find('=') == std::string::npos || o.find(',') != std::string::npos)
      throw LegoError("--only " + o + ": expected NAME=VALUE, a layout's alternative as in the variant ids, e.g. --only B=row");
    const std::string key = o.substr(0, o.find('=')), value = o.substr(o.find('=') + 1);
    // A layout name must be the kernel's and its alternative one of its own.
    bool known = false;
    const auto check = [&](const std::string& name, const std::vector<kernel::LayoutChoice>& alternatives) {
      if (name != key) return;
      known = true;
      std::string names;
      for (const auto& a : alternatives) {
        if (a.name == value) return;
        names += (names.empty() ? "" : ", ") + a.name;
      }
      throw LegoError("--only " + o + ": " + key + " has no alternative \"" + value + "\" (it has: " + names + ")");
    };
    for (const auto& t : spec.tensors) check(t.name, t.layouts);
    for (const auto& l : spec.layouts) check(l.name, l.alternatives);
    // A parameter's value must be one it takes: a fixed one says so, and how to change it.
    for (const auto& q : spec.parameters) {
      if (q.name != key) continue;
      known = true;
      const std::vector<std::int64_t> values = values_of(q, sets);
      // As a number: the ids write 16, and +16 or 016 is the same value.
      std::int64_t number = 0;
      if (!parse_integer(value, number))
        throw LegoError(fmt::format("--only {}: {} is a parameter, and \"{}\" is not an integer", o, key, value));
      const bool taken = std::find(values.begin(), values.end(), number) != values.end();
      if (taken) {
        kept.back() = key + "=" + std::to_string(number);  // as the ids write it
        continue;
      }
      if (values.size() == 1)
        throw LegoError(fmt::format("--only {}: {} is fixed at {} in {}{}; --set {}={} changes it", o, key, values[0], spec.name,
                                    sets.count(key) ? " by --set" : "", key, value));
      throw LegoError(fmt::format("--only {}: {} takes no value \"{}\" (its values: {})", o, key, value, joined(values)));
    }
    if (!known) {  // a name that is none of the kernel's layouts or parameters keeps nothing: say so, not "leaves none"
      std::string layouts, parameters;
      for (const auto& t : spec.tensors) layouts += (layouts.empty() ? "" : ", ") + t.name;
      for (const auto& l : spec.layouts) layouts += (layouts.empty() ? "" : ", ") + l.name;
      for (const auto& q : spec.parameters) parameters += (parameters.empty() ? "" : ", ") + q.name;
      throw LegoError("--only " + o + ": " + spec.name + " has no layout or parameter \"" + key + "\" (layouts: " + layouts +
                      (parameters.empty() ? "" : "; parameters: " + parameters) + ")");
    }
  }
  return kept;
}

void check_fixed_extents(const kernel::KernelSpec& spec, const Env& sets) {
  // The kernel's parameters only: a --set of another name is refused later, saying so.
  Env fixed;
  for (const auto& p : spec.parameters)
    if (const std::vector<std::int64_t> values = values_of(p, sets); values.size() == 1) fixed[p.name] = values[0];
  for (const auto& t : spec.tensors)
    for (const Expr& e : t.extents) {
      std::set<std::string> named;
      collect_symbols(e, named);
      std::string with;
      bool all_fixed = true;
      for (const std::string& n : named) {
        const auto it = fixed.find(n);
        if (it == fixed.end()) {
          all_fixed = false;
          break;
        }
        with += fmt::format("{}{} = {}{}", with.empty() ? "" : ", ", n, it->second, sets.count(n) ? " (--set)" : "");
      }
      if (!all_fixed) continue;
      std::int64_t extent = 0;
      try {
        extent = evaluate(e, fixed);
      } catch (const LegoError& error) {
        throw LegoError(fmt::format("tensor {}: its extent {} does not evaluate{}: {}", t.name, to_string(e),
                                    with.empty() ? "" : " with " + with, error.what()));
      }
      if (extent < 1)
        throw LegoError(fmt::format("tensor {}: its extent {} is {}{}, in every variant; extents are >= 1", t.name, to_string(e), extent,
                                    with.empty() ? "" : " with " + with));
    }
}

}  // namespace lego::cli
