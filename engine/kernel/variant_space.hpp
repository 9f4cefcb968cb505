// A kernel's variant space as axes, without listing it: candidate i is the
// mixed-radix digits of i over the axes (the first axis fastest), and it is
// admitted when every constraint holds, the target can run it and --only
// keeps it. enumerate_variants lists spaces; searches (engine/search) walk
// spaces of any size through this, in memory that does not grow with them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "target/target.hpp"

namespace lego::kernel {

// One axis of the space: a tensor/layout choice or a parameter's values.
struct Axis {
  std::string name;
  bool is_layout = false;
  std::vector<std::string> choices;
  std::vector<std::int64_t> values;
  std::size_t size() const { return is_layout ? choices.size() : values.size(); }
};

// The axes in id order: tensors' layouts, named layouts, parameters (an
// override is a parameter's only value). Throws LegoError for an override
// naming no parameter.
std::vector<Axis> axes_of(const KernelSpec& spec, const Env& overrides);
Variant make_variant(const std::vector<Axis>& axes, std::uint64_t index);
// Every constraint holds; throws LegoError naming a constraint that cannot be evaluated.
bool satisfies(const KernelSpec& spec, const Variant& variant);
// Whether the id has every NAME=VALUE of `parts` among its comma-separated parts.
bool has_parts(const std::string& id, const std::vector<std::string>& parts);

class LazySpace {
 public:
  // `target`, when given, must outlive the space. Throws LegoError above 2^40 candidates.
  LazySpace(const KernelSpec& spec, const Env& overrides, const target::Target* target = nullptr, std::vector<std::string> only = {});

  const KernelSpec& spec() const { return *spec_; }
  const std::vector<Axis>& axes() const { return axes_; }
  std::uint64_t candidates() const { return candidates_; }
  Variant candidate(std::uint64_t index) const { return make_variant(axes_, index); }
  // The candidate when it is admitted.
  std::optional<Variant> admitted(std::uint64_t index) const;
  std::vector<std::size_t> digits(std::uint64_t index) const;
  std::uint64_t index_of(const std::vector<std::size_t>& digits) const;
  // The index of a variant of this space (its choices and parameter values), or nullopt.
  std::optional<std::uint64_t> index_of(const Variant& variant) const;
  // Candidates with the same code class generate the same code: they differ
  // only in parameters that neither the template, the reference, the
  // tensors' extents, the launch shape nor the layouts chosen name (a
  // row-major walk ignores the tile sizes). It is the index with those
  // parameters at their first value, which need not be admitted. Sound, not
  // complete: two classes may still generate the same code.
  std::uint64_t code_class(std::uint64_t index) const;

 private:
  const KernelSpec* spec_;
  std::vector<Axis> axes_;
  std::uint64_t candidates_ = 1;
  const target::Target* target_;
  std::vector<std::string> only_;
  // Per axis: a parameter named by what every variant compiles; a layout
  // axis's choices' parameters (the parameter axes whose names its text holds).
  std::vector<bool> always_live_;
  std::vector<std::vector<std::vector<std::size_t>>> choice_names_;
};

}  // namespace lego::kernel
