// Index code: what a placeholder that names a tensor or layout prints.
// Each derives the layout's apply or inv at the placeholder's indices
// (layout/derive: simplified, strength-reduced, folded onto open loop
// nests' variables) and prints it in the kernel's language; the derived
// temporaries are renamed per placeholder (lego_<ordinal>_t0) so that two
// never collide. Errors are LegoErrors naming the layout; the caller adds
// the template's line and column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/binding.hpp"
#include "kernel/loop_code.hpp"
#include "kernel/placeholder.hpp"
#include "sym/print.hpp"

namespace lego::kernel {

struct IndexContext {
  const KernelSpec& spec;
  const Binding& binding;
  const Env& parameters;
  sym::Lang lang;
  const std::vector<OpenNest>& nests;
};

struct IndexCode {
  std::string code;
  int ops = 0;  // index operations the printed code does
  DeriveResult derived;
};

// NAME[indices] as one expression: "(expr)", or a lambda that defines the temporaries first.
IndexCode access_index(const IndexContext& c, const placeholder::Access& access, std::size_t ordinal);

// names = layout.inv(indices) as declarations: "const int64_t i = ..; ..".
IndexCode inverse_declarations(const IndexContext& c, const std::string& layout, const std::vector<std::string>& indices,
                               const std::vector<std::string>& names, std::size_t ordinal);

// {{ A.size }}: the positions A's storage holds.
std::int64_t storage_size(const IndexContext& c, const std::string& name);

// {{ A.run(d) }}: the longest run along index d that A stores at
// consecutive positions, as ISL proves it (1 when it cannot); the proof
// goes to `notes`. A template may copy such a run without checking it.
std::int64_t proved_run(const IndexContext& c, const placeholder::Run& run, std::vector<std::string>& notes);

// {{ A.stride(d) }}: how far apart A stores neighbours along index d,
// checked the same at every index of the layout's table at these sizes; a
// layout whose stride varies is an error naming two places where it differs.
std::int64_t constant_stride(const IndexContext& c, const placeholder::Stride& stride, std::vector<std::string>& notes);

}  // namespace lego::kernel
