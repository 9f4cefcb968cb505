#include "kernel/variant_space.hpp"

#include <algorithm>

#include "kernel/binding.hpp"

namespace lego::kernel {

std::vector<Axis> axes_of(const KernelSpec& spec, const Env& overrides) {
  std::vector<Axis> axes;
  auto add_layouts = [&](const std::string& name, const std::vector<LayoutChoice>& alternatives) {
    Axis a{name, true, {}, {}};
    for (const auto& c : alternatives) a.choices.push_back(c.name);
    axes.push_back(std::move(a));
  };
  for (const auto& t : spec.tensors) add_layouts(t.name, t.layouts);
  for (const auto& l : spec.layouts) add_layouts(l.name, l.alternatives);
  for (const auto& p : spec.parameters) {
    Axis a{p.name, false, {}, p.values};
    if (auto it = overrides.find(p.name); it != overrides.end()) a.values = {it->second};
    axes.push_back(std::move(a));
  }
  for (const auto& [name, value] : overrides)
    if (std::none_of(spec.parameters.begin(), spec.parameters.end(), [&name = name](const Parameter& p) { return p.name == name; }))
      throw LegoError("--set " + name + "=" + std::to_string(value) + ": the kernel has no parameter named \"" + name + "\"");
  return axes;
}

Variant make_variant(const std::vector<Axis>& axes, std::uint64_t index) {
  Variant v;
  for (const auto& a : axes) {
    const std::uint64_t k = index % a.size();
    index /= a.size();
    if (!v.id.empty()) v.id += ",";
    if (a.is_layout) {
      v.layout_choice[a.name] = a.choices[k];
      v.id += a.name + "=" + a.choices[k];
    } else {
      v.parameters[a.name] = a.values[k];
      v.id += a.name + "=" + std::to_string(a.values[k]);
    }
  }
  return v;
}

// Whether the id has every NAME=VALUE of `parts` among its comma-separated parts.
bool has_parts(const std::string& id, const std::vector<std::string>& parts) {
  const std::string padded = "," + id + ",";
  return std::all_of(parts.begin(), parts.end(), [&](const std::string& p) { return padded.find("," + p + ",") != std::string::npos; });
}

bool satisfies(const KernelSpec& spec, const Variant& v) {
  for (const auto& c : spec.constraints) {
    try {
      if (evaluate(c.expr, v.parameters) == 0) return false;
    } catch (const LegoError& e) {
      throw LegoError("constraint \"" + c.text + "\": " + e.what());
    }
  }
  return true;
}

LazySpace::LazySpace(const KernelSpec& spec, const Env& overrides, const target::Target* target, std::vector<std::string> only)
    : spec_(&spec), axes_(axes_of(spec, overrides)), target_(target), only_(std::move(only)) {
  for (const auto& a : axes_) {
    if (a.size() == 0) throw LegoError("the variant space of " + spec.name + " is empty: " + a.name + " has no alternatives");
    if (candidates_ > (std::uint64_t{1} << 40) / a.size()) throw LegoError("the variant space has more than 2^40 candidates; narrow it");
    candidates_ *= a.size();
  }
  std::set<std::string, std::less<>> named = identifiers_in_code(spec.template_text);
  named.merge(identifiers_in_code(spec.reference_text));
  std::set<std::string> symbols;
  for (const auto& t : spec.tensors)
    for (const auto& e : t.extents) collect_symbols(e, symbols);
  for (const auto& e : spec.grid) collect_symbols(e, symbols);
  for (const auto& e : spec.block) collect_symbols(e, symbols);
  named.insert(symbols.begin(), symbols.end());
  std::vector<const std::vector<LayoutChoice>*> layout_axes;
  for (const auto& t : spec.tensors) layout_axes.push_back(&t.layouts);
  for (const auto& l : spec.layouts) layout_axes.push_back(&l.alternatives);
  choice_names_.resize(axes_.size());
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    always_live_.push_back(axes_[a].is_layout || named.count(axes_[a].name) > 0);
    if (!axes_[a].is_layout) continue;
    for (const auto& choice : *layout_axes.at(a)) {
      const auto in_text = identifiers_in(choice.text);
      std::vector<std::size_t> params;
      for (std::size_t p = 0; p < axes_.size(); ++p)
        if (!axes_[p].is_layout && in_text.count(axes_[p].name)) params.push_back(p);
      choice_names_[a].push_back(std::move(params));
    }
  }
}

std::uint64_t LazySpace::code_class(std::uint64_t index) const {
  std::vector<std::size_t> d = digits(index);
  std::vector<bool> live = always_live_;
  for (std::size_t a = 0; a < axes_.size(); ++a)
    if (axes_[a].is_layout)
      for (const std::size_t p : choice_names_[a].at(d[a])) live[p] = true;
  for (std::size_t a = 0; a < axes_.size(); ++a)
    if (!live[a]) d[a] = 0;
  return index_of(d);
}

std::optional<Variant> LazySpace::admitted(std::uint64_t index) const {
  Variant v = candidate(index);
  if (!satisfies(*spec_, v)) return std::nullopt;
  if (target_ && !ruled_out_by(*spec_, v.parameters, *target_).empty()) return std::nullopt;
  if (!has_parts(v.id, only_)) return std::nullopt;
  return v;
}

std::vector<std::size_t> LazySpace::digits(std::uint64_t index) const {
  std::vector<std::size_t> d;
  for (const auto& a : axes_) {
    d.push_back(static_cast<std::size_t>(index % a.size()));
    index /= a.size();
  }
  return d;
}

std::uint64_t LazySpace::index_of(const std::vector<std::size_t>& digits) const {
  std::uint64_t index = 0;
  for (std::size_t k = axes_.size(); k-- > 0;) index = index * axes_[k].size() + digits.at(k);
  return index;
}

std::optional<std::uint64_t> LazySpace::index_of(const Variant& v) const {
  std::vector<std::size_t> d;
  for (const auto& a : axes_) {
    std::size_t k = 0;
    if (a.is_layout) {
      const auto it = v.layout_choice.find(a.name);
      if (it == v.layout_choice.end()) return std::nullopt;
      k = static_cast<std::size_t>(std::find(a.choices.begin(), a.choices.end(), it->second) - a.choices.begin());
    } else {
      const auto it = v.parameters.find(a.name);
      if (it == v.parameters.end()) return std::nullopt;
      k = static_cast<std::size_t>(std::find(a.values.begin(), a.values.end(), it->second) - a.values.begin());
    }
    if (k >= a.size()) return std::nullopt;
    d.push_back(k);
  }
  return index_of(d);
}

}  // namespace lego::kernel
