// What fuzz_project does with one input, shared with the regression test:
// the text is read as a project sitting in projects/, its variant space is
// enumerated and each kernel's first variant instantiated. A LegoError is a
// refusal and propagates; so does anything else, which is a bug.
#pragma once

#include <string>

#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"

namespace lego::fuzz {

// Returns how many kernels reached the code generator.
inline int load_and_instantiate(const std::string& text) {
  const kernel::Project project = kernel::parse_project(text, "fuzz.lego.json", LEGO_PROJECTS_DIR, kernel::default_resource_dirs());
  int instantiated = 0;
  for (const auto& spec : project.kernels) {
    const kernel::VariantSpace space = kernel::enumerate_variants(spec, {2, 1, {}});
    if (space.variants.empty()) continue;
    (void)kernel::instantiate(spec, space.variants.front(), spec.backend == kernel::Backend::Cuda ? sym::Lang::Cuda : sym::Lang::C);
    ++instantiated;
  }
  return instantiated;
}

}  // namespace lego::fuzz
