#include "studio/kept_results.hpp"

#include "run/sweep.hpp"

namespace lego::studio {

namespace {

const KernelInfo* kernel_named(const ProjectInfo& project, const std::string& name) {
  for (const auto& k : project.kernels)
    if (k.spec.name == name) return &k;
  return nullptr;
}

const VariantInfo* variant_named(const KernelInfo& k, const std::string& id) {
  for (const auto& v : k.variants)
    if (v.id() == id) return &v;
  return nullptr;
}

bool same_code(const VariantInfo* a, const VariantInfo* b) {
  if (!a || !b || !a->instantiated() || !b->instantiated()) return false;
  const kernel::Instance &x = a->instance(), &y = b->instance();
  return run::code_key(x) == run::code_key(y) && x.reference == y.reference && x.grid == y.grid && x.block == y.block &&
         x.parameters == y.parameters;
}

// A baseline runs at the sizes of the kernel's first variant: the same
// source at the same parameter values times the same thing.
bool same_baseline(const KernelInfo& a, const KernelInfo& b, const std::string& id) {
  if (a.spec.parameters.size() != b.spec.parameters.size()) return false;
  for (std::size_t p = 0; p < a.spec.parameters.size(); ++p)
    if (a.spec.parameters[p].name != b.spec.parameters[p].name || a.spec.parameters[p].values != b.spec.parameters[p].values) return false;
  for (const auto& x : a.spec.baselines)
    for (const auto& y : b.spec.baselines)
      if (kernel::baseline_key(a.spec.name, x.name).id() == id && x.name == y.name)
        return x.source_text == y.source_text && x.library == y.library;
  return false;
}

}  // namespace

std::map<std::string, OutcomePtr> results_still_valid(const ProjectInfo& before, const ProjectInfo& after,
                                                      const std::map<std::string, OutcomePtr>& outcomes) {
  std::map<std::string, OutcomePtr> kept;
  const bool same_target = before.target.name == after.target.name;
  for (const auto& [key, o] : outcomes) {
    if (o->status == run::Status::Imported) continue;
    const KernelInfo *was = kernel_named(before, o->kernel), *is = kernel_named(after, o->kernel);
    if (!was || !is) continue;
    const bool holds =
        o->baseline ? same_target && same_baseline(*was, *is, o->id) : same_code(variant_named(*was, o->id), variant_named(*is, o->id));
    if (holds) kept.emplace(key, o);
  }
  return kept;
}

}  // namespace lego::studio
