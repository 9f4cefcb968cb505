// What a search knows about a variant before running it, as numbers a
// model can weigh: the roofline's time for its bytes and FLOPs on this
// machine (the prior every prediction starts from), its layout choices
// (one-hot), its parameters (log2, squared, pairwise, and against each
// layout choice: tile sizes interact), and how full its register tile
// leaves the target's vector registers.
//
// The prior also carries what the engine can tell statically about the
// code a variant becomes (static_log_penalty): how far its register tile
// keeps the FMA pipes busy on this target (accumulators against the FMA
// latency and pipes, loads against the load ports), and which of the
// strides the template asks for ({{ B.stride(d) }}: a vector access) are
// not 1, so that the access becomes a gather (its cycles a time beside the
// memory's, where the bytes bound the kernel), and what the loop's order does
// to the caches (walk.hpp: L1, L2 and TLB misses per access over the first
// iterations of `{{ for ... in L }}`, each access placed by its tensor's
// layout). Where the template inverts a layout per element
// ({{ i, j = L.inv(x) }}), the index arithmetic it does for each element
// is a third roof beside bytes and FLOPs: the operations the engine's
// derived index code performs, per iteration, on the target's scalar ALUs.
// None needs a run, so a search's first round can already prefer the
// variants they favour.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "kernel/placeholder.hpp"
#include "kernel/variant_space.hpp"
#include "layout/plan.hpp"
#include "target/target.hpp"

namespace lego::search {

struct MachineFigures {
  double bandwidth_gbs = 0;   // the roof for bytes (0: unknown)
  double peak_gflops = 0;     // the roof for FLOPs (0: unknown)
  double resident_bytes = 0;  // what the caches keep of a streaming kernel, measured (run::Roof::resident_mib; 0: unknown)
  // A streamed line's time alone over one of a 128-byte pair (run::Roof; 0: unknown, priced as a pair's): the walk's
  // lone lines and in_core's tensors accessed in runs of a line or less.
  double lone_line_cost = 0;
  // A copy writing each line in pieces at different times over one writing whole lines (run::Roof; 0: unknown, not priced).
  double partial_line_cost = 0;
};

// The figures of a measured roof (run::Roof: a template, for the search
// does not depend on run), the same for lego bench and the app's Search.
template <class Roof>
MachineFigures machine_figures(const Roof& roof) {
  return {roof.copy_gbs, roof.peak_gflops_f32, roof.resident_mib * 1048576.0, roof.lone_line_cost, roof.partial_line_cost};
}

class Features {
 public:
  Features(const kernel::LazySpace& space, const target::Target& target, MachineFigures machine);

  // One value per name(); the roofline prior is not among them.
  std::vector<double> of(const kernel::Variant& variant) const;
  const std::vector<std::string>& names() const { return names_; }
  // The columns that are the variant itself (layout one-hots, log2 of each
  // parameter), not products of them: what the boosted trees split on.
  const std::vector<std::size_t>& raw_columns() const { return raw_; }
  // log(milliseconds) the roofline allows the variant: max(bytes / bandwidth,
  // FLOPs / peak); 0 when the kernel names neither or the machine is unknown.
  double prior_log_ms(const kernel::Variant& variant) const;
  // The roofline's part of the prior alone (0 when unknown).
  double roofline_log_ms(const kernel::Variant& variant) const;
  // Its milliseconds (0 when unknown).
  double roofline_ms(const kernel::Variant& variant) const;
  // A declared figure (the kernel's bytes or FLOPs) at the variant's parameters; 0 when absent or not evaluable.
  double declared(const Expr& e, const kernel::Variant& variant) const;
  // log(time over the roofline's) the static analyses expect, >= 0: the
  // register tile's FMA-pipe efficiency, the gathers of non-unit strides
  // the cache and TLB misses of the loop's walk, and per-element index
  // arithmetic above the roofline.
  double static_log_penalty(const kernel::Variant& variant) const;
  // Whether the penalty can differ between variants (a register tile, an
  // asked stride or a walked loop): a search ranks its first round by the
  // prior only then.
  bool prior_ranks() const {
    // (A declared vector loop walks at least one tensor or layout: its asks are among asked_strides_.)
    return space_->spec().register_tile.has_value() || !asked_strides_.empty() || !walk_sites_.empty() || !inverted_.empty();
  }
  // The index operations the variant's derived code performs (every
  // placeholder's, as instantiated for the target); -1 when it does not
  // instantiate. Computed only where the template inverts a layout.
  int index_ops(const kernel::Variant& variant) const;
  // The loop walk's misses per access: L1, L2, TLB, element at a time,
  // log2 of the inner loop, lines streamed in part, page walks, streamed
  // lines, L2 misses not prefetched, lone, paired and four-line streamed runs
  // (search/walk.hpp's WalkCounts: kWalkCounts figures); zeros
  // when the template has no loop over a layout whose accesses it can place.
  std::vector<double> walk_misses(const kernel::Variant& variant) const;
  static constexpr std::size_t kWalkCounts = 12;  // walk_misses' figures, as named in names()

 private:
  const kernel::LazySpace* space_;
  target::Target target_;
  MachineFigures machine_;
  std::vector<std::size_t> layout_axes_, numeric_axes_;
  std::vector<std::string> names_;
  std::vector<std::size_t> raw_;
  // The template's {{ NAME.stride(d) }} and {{ NAME.run(d) }} placeholders:
  // it asks for a stride to load vectors along d where it is 1, and for a
  // run to load whole vectors where the run holds one.
  struct AskedVector {
    std::string name;
    std::size_t dimension = 0;
    bool run = false;                // {{ NAME.run(d) }}
    std::vector<std::int64_t> step;  // a declared vector loop's step in each index (kernel::VectorWalk), else along `dimension`
    bool declared = false;           // the project's vector_loop walks it (its trip, where declared, is the vector's lanes)
  };
  std::vector<AskedVector> asked_strides_;
  // The gathers' cost in the core: their extra cycles over whole-vector
  // accesses, and the old relative price where no roof is known. It depends
  // only on the named views' layout choices and the parameters their text
  // and extents mention: computed once per such key (a layout with a user
  // GenP is checked exhaustively each time it is planned, which a
  // 20000-variant pool must not repeat).
  struct GatherCost {
    double cycles = 0;               // every core's cycles together
    double log_without_roof = 0;     // log(lanes / 2) per gathered access (lanes / run for short runs)
    double log_unreused = 0;         // log(lanes / 2) per read gather whose lines its next steps do not reuse
    double bytes_in_parts = 0;       // the bytes of tensors written in runs shorter than a line (read before they are written)
    double run_cycles = 0;           // every core's cycles for the runs shorter than a vector, beyond one a vector
    double bytes_in_lone_lines = 0;  // the bytes of tensors accessed in runs of a line or less (no 128-byte pair)
  };
  GatherCost gather_cost(const kernel::Variant& variant) const;
  std::map<std::string, int> access_sites_;  // per tensor or layout: the template's places that access it
  double cycles_per_ms() const;
  // How many of `lanes` lanes `stride` elements apart fall in one L1 set (0: no more than in any other).
  double lines_in_one_set(std::int64_t stride, int element_bytes, double lanes) const;
  // Whether `plan` is contiguous along its last index where the gather walks another (its lines are then reused).
  bool reused_along_last(const Plan& plan, std::size_t walked) const;
  static constexpr double kThrashedStoreCycles = 6;  // per element of a scatter that thrashes an L1 set
  // The index code's milliseconds (0: no inverted layout; -1: the variant does not instantiate or bind).
  double index_ms(const kernel::Variant& variant) const;
  // log(in-core time over the roofline's) where it is longer: the gathers and the index code.
  double in_core_penalty(const kernel::Variant& variant) const;
  // The key of what `names`' views depend on: their layout choices and the
  // parameters that size or place them.
  std::string views_key(const std::vector<std::string>& names, const kernel::Variant& variant) const;
  std::map<std::string, std::vector<std::string>> view_parameters_;  // per view: the parameters that size or place it
  std::vector<std::string> gather_views_;  // the names asked_strides_ mentions, and every tensor where it mentions any
  // The template's first `{{ for c.. in L }}` and the accesses its body
  // makes with indices that are its coordinates or integers.
  struct WalkSite {
    std::string tensor;
    std::vector<int> coordinate;  // per index: the loop's coordinate, or -1
    std::vector<std::int64_t> constant;
    bool written = false;  // its tensor's role is out or inout: plain stores read each missed line first
  };
  std::string walk_loop_;
  std::size_t walk_loop_placeholder_ = 0;
  bool walk_moves_ = false;  // the loop's body has a move, which may become a register transpose
  // The register transpose the code generator makes of the walk loop's
  // move for this variant, if any (it instantiates the variant).
  std::optional<kernel::Instance::RegisterTranspose> register_transpose(const kernel::Variant& variant) const;
  std::size_t walk_rank_ = 0;  // the loop's coordinates
  // The loop's flat=EXPR: where it is not 0 the loop walks x over L's order
  // and inverts L per element, an element at a time whatever the accesses.
  std::optional<Expr> walk_flat_;
  bool flat_walk(const kernel::Variant& variant) const;
  // walk_misses before the flat form: what the layouts alone give, cached per views_key.
  std::vector<double> walk_misses_of_order(const kernel::Variant& variant) const;
  std::vector<WalkSite> walk_sites_;
  std::vector<std::string> walk_views_;  // the loop's layout and the sites' tensors
  double walk_element_bytes_ = 4;        // the sites' mean element size: a line holds 64 / it of them
  double walk_penalty(const kernel::Variant& variant) const;
  void find_sites(const std::vector<kernel::Placeholder>& placeholders);
  // The layout the template's first {{ .. = L.inv(x) }} inverts (empty: none):
  // x runs over its positions, an element's index code per iteration.
  std::string inverted_;
  std::vector<std::string> index_views_;  // every tensor and layout: what index code depends on
  // The declared vector loop's length per entry (kernel::VectorLoop::trip) against the target's lanes.
  double trip_penalty(const kernel::Variant& variant) const;
  double declared_trip(const kernel::Variant& variant) const;  // 0: none declared, or not evaluable
  // A round ranks up to 20000 candidates: their keys fit (the walk's figures are bounded tighter, kWalkCacheKeys).
  template <typename T, typename Compute>
  T memoized(std::map<std::string, T>& cache, const std::string& key, Compute compute, std::size_t bound = 1 << 15) const;
  mutable std::mutex cache_mutex_;
  mutable std::map<std::string, GatherCost> gather_cache_;
  mutable std::map<std::string, std::vector<double>> walk_cache_;
  mutable std::map<std::string, int> ops_cache_;
  mutable std::map<std::string, double> index_ms_cache_;        // -1: the variant cannot instantiate or bind
  static constexpr std::size_t kWalkCacheKeys = 4096;           // each holds a walk's figures (kWalkCounts)
  static constexpr const char* kTemplateView = "{{template}}";  // view_parameters_' entry for the template's own text
  static constexpr const char* kTripView = "{{trip}}";          // and for the declared vector loop's trip
  // A variant that cannot instantiate or bind: ranked after every one that can.
  static constexpr double kUnrunnablePenalty = 20;
};

// `compute()` once per key; a cache past `bound` keys starts over (a space
// whose views depend on many parameters has as many keys: bound the memory,
// not the space). Computed outside the lock: two threads may both compute a key.
template <typename T, typename Compute>
T Features::memoized(std::map<std::string, T>& cache, const std::string& key, Compute compute, std::size_t bound) const {
  {
    const std::lock_guard<std::mutex> lock(cache_mutex_);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  T value = compute();
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache.size() >= bound) cache.clear();
  cache[key] = value;
  return value;
}

}  // namespace lego::search
