// Which row of a kernel's sweep a result belongs to: one of its variants
// (by id, "A=row,T=16") or one of its baselines (by name, "openblas").
// Results files and tables write a key as text ("baseline:openblas",
// "transpose2d/A=row,T=16"); code compares and looks up the values.
#pragma once

#include <compare>
#include <string>

namespace lego::kernel {

struct VariantKey {
  std::string kernel;
  std::string name;  // the variant's id, or the baseline's name
  bool baseline = false;

  // The row's id as results files and tables show it: the variant's id, or "baseline:NAME".
  std::string id() const;
  // "kernel/id": a key in a cluster job's manifest and the app's result maps.
  std::string text() const;

  friend auto operator<=>(const VariantKey&, const VariantKey&) = default;
  friend bool operator==(const VariantKey&, const VariantKey&) = default;
};

inline VariantKey variant_key(std::string kernel, std::string id) { return {std::move(kernel), std::move(id), false}; }
inline VariantKey baseline_key(std::string kernel, std::string name) { return {std::move(kernel), std::move(name), true}; }

// A row read back from a results file, which keeps the id and a baseline
// flag: the one place a baseline's id is read as its name.
VariantKey key_of_row(const std::string& kernel, const std::string& id, bool baseline);

}  // namespace lego::kernel
