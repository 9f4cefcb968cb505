#include "run/transfer.hpp"

#include <set>

#include "kernel/variant_space.hpp"
#include "run/sweep_driver.hpp"

namespace lego::run {

search::Transfer cached_transfer(const kernel::Project& project, const kernel::KernelSpec& searched, const search::Features& features,
                                 const target::Target& target, const search::MachineFigures& machine, const RunOptions& options) {
  search::Transfer transfer;
  for (const kernel::KernelSpec& other : project.kernels) {
    if (other.name == searched.name || other.backend != searched.backend) continue;
    try {
      const kernel::LazySpace space(other, {}, &target);
      if (space.candidates() > kMostTransferCandidates) continue;
      const search::Features sibling(space, target, machine);
      std::vector<std::pair<kernel::Variant, double>> timings;
      std::set<std::uint64_t> classes;
      for (std::uint64_t i = 0; i < space.candidates(); ++i) {
        if (!classes.insert(space.code_class(i)).second) continue;
        const std::optional<kernel::Variant> v = space.admitted(i);
        if (!v) continue;
        const PreparedVariant prepared = prepare_variant(other, *v, target);
        if (!prepared.instance) continue;
        const std::optional<kernel::Instance> small = options.verify ? verification_instance(other, *v, false, target) : std::nullopt;
        if (const std::optional<double> ms = cached_ms(*prepared.instance, small ? &*small : nullptr, options))
          timings.emplace_back(*v, *ms);
      }
      search::add_kernel(transfer, other.name, features, sibling, timings);
    } catch (const LegoError&) {
      // A kernel that does not enumerate here (its sizes, this target) tells nothing.
    }
  }
  return transfer;
}

}  // namespace lego::run
