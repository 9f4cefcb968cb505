// A search's start from the user's earlier measurements: the project's other
// kernels of the same template as the results cache holds them on this machine, as rows of the
// searched kernel's features (search/transfer). Reads the cache only: no
// kernel is compiled or run for it.
#pragma once

#include <atomic>

#include "kernel/spec.hpp"
#include "run/sweep.hpp"
#include "search/transfer.hpp"
#include "target/target.hpp"

namespace lego::run {

// A kernel whose space has more candidates than this is not read: listing
// its codes would take longer than the search it helps.
constexpr std::uint64_t kMostTransferCandidates = 4096;
// Each code read is instantiated (its cache key is its code): a project
// whose kernels are slow to instantiate (a user GenP checked exhaustively at
// 256^3) is read for at most this long, before the search starts.
constexpr double kTransferSeconds = 10;

// Whether `other` is a kernel a search of `searched` reads (another kernel,
// the same backend and template: its features then name the same loops and
// accesses; across templates they misled, the 3-D and 4-D copies sending
// transpose2d's register transposes from 4 evaluations to 9, session 30).
bool transfers_to(const kernel::KernelSpec& other, const kernel::KernelSpec& searched);

// The other kernels of `project` made from `searched`'s template, at their own
// default sizes, each code whose result the cache holds for `options` (and
// verified, where `options` verifies) on `target`, each code once (a code
// two kernels or two parameter values share counts once). Nothing without
// options.cache (--no-cache). A kernel that does not enumerate or
// instantiate here is skipped; the reading stops at kTransferSeconds or a
// cancel (Transfer::cut_short).
search::Transfer cached_transfer(const kernel::Project& project, const kernel::KernelSpec& searched, const search::Features& features,
                                 const target::Target& target, const search::MachineFigures& machine, const RunOptions& options,
                                 const std::atomic<bool>* cancel = nullptr);

}  // namespace lego::run
