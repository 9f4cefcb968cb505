#include "run/transfer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <set>

#include "kernel/variant_space.hpp"
#include "run/sweep_driver.hpp"

namespace lego::run {

bool transfers_to(const kernel::KernelSpec& other, const kernel::KernelSpec& searched) {
  return other.name != searched.name && other.backend == searched.backend && other.template_text == searched.template_text;
}

search::Transfer cached_transfer(const kernel::Project& project, const kernel::KernelSpec& searched, const search::Features& features,
                                 const target::Target& target, const search::MachineFigures& machine, const RunOptions& options,
                                 const std::atomic<bool>* cancel) {
  search::Transfer transfer;
  if (!options.cache) return transfer;
  const auto started = std::chrono::steady_clock::now();
  const auto out_of_time = [&] {
    const bool over =
        (cancel && cancel->load()) || std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() > kTransferSeconds;
    transfer.cut_short |= over;
    return over;
  };
  std::set<std::string> codes;  // across the kernels: a code two of them share is one timing
  for (const kernel::KernelSpec& other : project.kernels) {
    if (!transfers_to(other, searched) || out_of_time()) continue;
    try {
      const kernel::LazySpace space(other, {}, &target);
      if (space.candidates() > kMostTransferCandidates) {
        transfer.left_out.push_back(fmt::format("{} (over {} candidates)", other.name, kMostTransferCandidates));
        continue;
      }
      std::vector<std::pair<kernel::Variant, double>> timings;
      std::set<std::uint64_t> classes;
      for (std::uint64_t i = 0; i < space.candidates() && !out_of_time(); ++i) {
        if (!classes.insert(space.code_class(i)).second) continue;
        const std::optional<kernel::Variant> v = space.admitted(i);
        if (!v) continue;
        const PreparedVariant prepared = prepare_variant(other, *v, target);
        // code_class is sound, not complete: variants of two classes may still make one code.
        if (!prepared.instance || !codes.insert(code_key(*prepared.instance)).second) continue;
        const std::optional<kernel::Instance> small = options.verify ? verification_instance(other, *v, false, target) : std::nullopt;
        if (const std::optional<double> ms = cached_ms(*prepared.instance, small ? &*small : nullptr, options))
          timings.emplace_back(*v, *ms);
      }
      if (timings.size() < search::kFewestTransferTimings) {
        if (!timings.empty())
          transfer.left_out.push_back(fmt::format("{} ({} timed code{}; {} are needed)", other.name, timings.size(),
                                                  timings.size() == 1 ? "" : "s", search::kFewestTransferTimings));
        continue;
      }
      const search::Features sibling(space, target, machine);
      search::add_kernel(transfer, other.name, features, sibling, timings);
    } catch (const std::exception&) {
      // A kernel that does not enumerate or instantiate here (its sizes, this target, its text) tells nothing.
      transfer.left_out.push_back(other.name + " (does not instantiate here)");
    }
  }
  return transfer;
}

}  // namespace lego::run
