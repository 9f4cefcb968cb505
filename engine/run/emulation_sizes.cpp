#include "run/emulation_sizes.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "expr/diagnostic.hpp"
#include "run/cuda_emulator.hpp"

namespace lego::run {

namespace {

std::int64_t product(const std::vector<Expr>& dims, const Env& parameters) {
  std::int64_t n = 1;
  for (const auto& d : dims) n *= std::max<std::int64_t>(1, evaluate(d, parameters));
  return n;
}

// The kernel's flops formula at `parameters` (0 without one).
double launch_flops(const kernel::KernelSpec& spec, const Env& parameters) {
  return spec.flops ? double(evaluate(spec.flops, parameters)) : 0;
}

}  // namespace

bool constraints_hold(const kernel::KernelSpec& spec, const Env& parameters) {
  try {
    for (const auto& c : spec.constraints)
      if (evaluate(c.expr, parameters) == 0) return false;
    return true;
  } catch (const LegoError&) {
    return false;  // e.g. a division by zero at these sizes
  }
}

std::int64_t launch_threads(const kernel::KernelSpec& spec, const Env& parameters) {
  if (spec.grid.empty() && spec.block.empty()) return 0;
  return product(spec.grid, parameters) * product(spec.block, parameters);
}

bool emulable(const kernel::KernelSpec& spec, const Env& parameters) {
  return launch_threads(spec, parameters) <= kMaxEmulatedThreads && launch_flops(spec, parameters) <= kMaxEmulatedFlops;
}

std::optional<Env> emulation_sizes(const kernel::KernelSpec& spec, const Env& parameters) {
  if (spec.backend != kernel::Backend::Cuda) return std::nullopt;
  try {
    if (emulable(spec, parameters)) return std::nullopt;
    if (!spec.verify_at.empty()) {
      Env small = parameters;
      for (const auto& [name, value] : spec.verify_at)
        if (auto it = small.find(name); it != small.end()) it->second = std::min(it->second, value);
      if (constraints_hold(spec, small) && emulable(spec, small)) return small;
    }
    std::set<std::string> sizes;
    for (const auto& t : spec.tensors)
      for (const auto& e : t.extents) collect_symbols(e, sizes);
    // A parameter that shapes the block (a tile, threads per block) makes
    // a different kernel when it changes: only the grid may shrink.
    std::set<std::string> tiles;
    for (const auto& e : spec.block) collect_symbols(e, tiles);
    for (const auto& t : tiles) sizes.erase(t);
    Env small = parameters;
    // Each step halves the largest size that can be halved, so a
    // rectangular problem keeps its aspect as long as it can.
    while (launch_threads(spec, small) > kQuickEmulationThreads || launch_flops(spec, small) > kQuickEmulationFlops) {
      std::vector<std::string> order(sizes.begin(), sizes.end());
      std::erase_if(order, [&](const std::string& name) { return !small.contains(name) || small.at(name) < 2; });
      std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) { return small.at(a) > small.at(b); });
      bool halved = false;
      for (const auto& name : order) {
        Env next = small;
        next[name] /= 2;
        if (!constraints_hold(spec, next)) continue;
        small = std::move(next);
        halved = true;
        break;
      }
      if (!halved) break;
    }
    if (!emulable(spec, small)) return std::nullopt;
    return small;
  } catch (const LegoError&) {
    return std::nullopt;  // a launch that does not evaluate at these sizes
  }
}

}  // namespace lego::run
