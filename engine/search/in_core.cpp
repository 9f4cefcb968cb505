// The core's part of the prior: the cycles a variant's gathers and short
// runs take beside whole-vector accesses, and its per-element index code,
// against the roofline's time for its bytes and FLOPs (features.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "kernel/binding.hpp"
#include "layout/make_plan.hpp"
#include "layout/untiled_view.hpp"
#include "search/features.hpp"
#include "search/walk.hpp"

namespace lego::search {

constexpr std::int64_t kLineBytes = 64;  // a cache line (x86 cores and Arm Neoverse)

// A loop that inverts a layout per element runs its index code once per
// position of that layout, in scalar code the compiler cannot vectorize
// through the divisions and the wraps: at about four integer operations a
// cycle per core (the ALUs of current x86 and Arm cores), that is a time
// beside the roofline's (in_core_penalty). All of the template's
// placeholders count, a branch's that rarely runs too (the stencil's
// boundary copy): an upper bound that ranks as the code does.
double Features::index_ms(const kernel::Variant& v) const {
  if (inverted_.empty()) return 0;
  // The index time depends on the index code and the inverted layout's size (the key's views and the template's
  // parameters).
  return memoized(index_ms_cache_, views_key(index_views_, v), [&] {
    const int ops = index_ops(v);
    if (ops < 0) return -1.0;
    try {
      const kernel::Binding binding = kernel::bind_variant(space_->spec(), v);
      const kernel::NamedView* view = binding.view(inverted_);
      if (!view) return 0.0;
      const double iterations = static_cast<double>(make_plan(view->ast, kernel::with_target(v.parameters, target_)).size());
      constexpr double kScalarOpsPerCycle = 4;
      return iterations * ops / (kScalarOpsPerCycle * cycles_per_ms());
    } catch (const LegoError&) {
      return -1.0;  // its layouts do not bind: its run will say why
    }
  });
}

// Lanes `stride` elements apart fall in the L1's sets by their addresses'
// line numbers modulo its sets (as the walk models the L1: on x86 a page's
// worth of 64-byte sets, l1d / 4 KiB ways; 4 ways on Arm): strides of a
// multiple of 4 KiB put every lane of an x86 L1 in one set, and so do
// strides a line or so past one (4100 bytes: lane k is 4 k bytes into its
// page). More such lanes, over all the gathers, than the L1 has ways evict
// each other's lines on every step; a stored one then also writes back the
// dirty line it evicts, and read ones cost no more than their gather. On a
// Sapphire Rapids (48 KiB L1, 12 ways) nw's O by rows, lanes 4 KiB apart,
// ran 5.2x O in lanes at 16 lanes (about 6 cycles more per stored element)
// and as fast at 8; R by rows beside it, 8 more lanes in the set, slowed it
// as much; R by rows alone, 16 clean lanes, ran 0.9x R in lanes.
double Features::lines_in_one_set(std::int64_t stride, int element_bytes, double lanes) const {
  constexpr std::int64_t kMostLanes = 64;
  const std::int64_t ways = l1_ways(target_), sets = target_.l1d_bytes / kLineBytes / std::max<std::int64_t>(1, ways);
  if (element_bytes < 1 || sets < 1 || stride < (kLineBytes + element_bytes - 1) / element_bytes) return 0;  // lanes within a line or two
  // Lane k's line is k * stride * element_bytes / 64 past lane 0's; only its residue modulo sets * 64 bytes places it,
  // which the stride's own residue gives without the product of a large stride.
  const std::int64_t span = sets * kLineBytes, step = (stride % span) * element_bytes % span;
  std::map<std::int64_t, int> in_set;
  int most = 0;
  const auto count = static_cast<std::int64_t>(std::clamp(lanes, 0.0, static_cast<double>(kMostLanes)));  // a huge trip's lanes too
  for (std::int64_t k = 0; k < count; ++k) most = std::max(most, ++in_set[(k * step % span) / kLineBytes]);
  return most > 1 ? most : 0;
}

// Whether `plan` stores consecutive positions of its last index one
// element apart, where the gathered index `walked` is another one (a step
// that moves several indices passes its rank: any last-index layout).
bool Features::reused_along_last(const Plan& plan, std::size_t walked) const {
  const int rank = plan.rank();
  if (rank < 1 || plan.shape()[rank - 1] < 2 || walked == static_cast<std::size_t>(rank - 1)) return false;
  std::vector<std::int64_t> at(static_cast<std::size_t>(rank), 0);
  const std::int64_t origin = plan.apply(at.data());
  at[rank - 1] = 1;
  return std::llabs(plan.apply(at.data()) - origin) == 1;
}

// A vector access along a stride other than 1 is a gather of one element
// per lane; one along runs shorter than a vector is lanes / run loads. A
// gather costs in the core, not in memory: loads issue on two ports,
// stores (a scatter) on about one, against half a cycle and one for a
// whole vector. Where the roofline prices the bytes, those cycles are a
// time beside it (as the index code's are) and only what exceeds it
// shows: nw's read gather of R hid behind its recurrence (R gathered ran
// 0.85x R in lanes, on a Sapphire Rapids), its H gathered at six sites
// (four in the cell loop) did not (2.2x). Runs longer than one element but
// shorter than a vector are each a position and a copy the template codes,
// cycles added to the time (run_cycles); a tensor written in runs shorter
// than a line has its lines read before they are written (bytes_in_parts);
// one accessed in runs of a line or less streams lone lines (bytes_in_lone_lines).
// A layout that is not a tensor is counted as accessed once per element of
// the largest tensor at each of the template's sites. Without a roof a
// gather is priced as lanes / 2 times the variant's time, a short run as
// lanes / run.
Features::GatherCost Features::gather_cost(const kernel::Variant& v) const {
  if (asked_strides_.empty()) return {};
  return memoized(gather_cache_, views_key(gather_views_, v), [&] {
    const kernel::KernelSpec& spec = space_->spec();
    GatherCost cost;
    constexpr double kLoadPorts = 2, kStorePorts = 1;
    // A run's position and its copy: stencil7's input staged in bricks of 4 and of 8 (runs of 4 and 8 floats, 16
    // a vector) ran 2.2 and 0.7 ms behind the bricks of 16 on a Sapphire Rapids (2 cores at 3.85 GHz), about 5
    // cycles for each run more.
    constexpr double kRunCycles = 5;
    try {
      const kernel::Binding binding = kernel::bind_variant(spec, v);
      const Env env = kernel::with_target(v.parameters, target_);
      // A layout that is not a tensor is taken to be accessed once per element of the largest tensor.
      double largest = 0;
      for (const kernel::BoundTensor& t : binding.tensors) largest = std::max(largest, static_cast<double>(t.elements));
      const double trip = declared_trip(v);
      double lines_in_set = 0, thrashable_stores = 0;  // the lanes that fall in one L1 set; the stored elements among them
      std::set<std::string> written_in_parts;          // the tensors counted in bytes_in_parts
      std::set<std::string> in_lone_lines;             // the tensors counted in bytes_in_lone_lines
      for (const AskedVector& asked : asked_strides_) {
        const kernel::NamedView* view = binding.view(asked.name);
        if (!view) continue;
        // A tensor is indexed by its own coordinates, a tiled layout's untiled ones.
        const kernel::BoundTensor* tensor = binding.tensor(asked.name);
        // A vector holds as many of the tensor's elements as the target's lanes
        // of its type (a layout that is not a tensor: of 4-byte elements).
        const int element_bytes = tensor ? static_cast<int>(kernel::element_bytes(tensor->type)) : 4;
        double lanes = std::max(1, target_.lanes(element_bytes));
        // A declared vector loop shorter than a vector fills only its trip's lanes: a gather of that many.
        if (asked.declared && trip > 0) lanes = std::min(lanes, trip);
        // A layout (not a tensor) walked by a declared step is read at the step's rank, untiled as a tensor is.
        const std::size_t rank = tensor ? tensor->extents.size() : asked.step.size();
        LayoutAst ast = view->ast;
        if (rank > 0) {
          try {
            ast = untiled_view(view->ast, rank);
          } catch (const LegoError&) {
            continue;  // neither it nor its untiled view has the rank the loop walks: no opinion
          }
        }
        const Plan plan = make_plan(ast, env);
        double pieces = 1;        // accesses per vector: lanes for a gather, lanes / run for short runs
        std::int64_t stride = 1;  // elements between lanes, where it gathers
        double relative = 0;      // the price without a roof, as a factor of the time (0: lanes / 2, a gather's)
        if (!asked.step.empty()) {
          // A declared step in each index: from the first place it can be taken at (the origin where it only grows).
          if (static_cast<int>(asked.step.size()) != plan.rank()) continue;
          std::vector<std::int64_t> from(asked.step.size()), to(asked.step.size());
          bool fits = true;
          for (std::size_t d = 0; d < asked.step.size(); ++d) {
            from[d] = std::max<std::int64_t>(0, -asked.step[d]);
            to[d] = from[d] + asked.step[d];
            fits &= from[d] < plan.shape()[d] && to[d] < plan.shape()[d];
          }
          if (fits) stride = std::llabs(plan.apply(to.data()) - plan.apply(from.data()));
          if (stride != 1) pieces = lanes;
        } else {
          const std::size_t d = asked.dimension;
          if (d >= static_cast<std::size_t>(plan.rank()) || plan.shape()[d] < 2) continue;
          std::vector<std::int64_t> at(static_cast<std::size_t>(plan.rank()), 0);
          const std::int64_t origin = plan.apply(at.data());
          if (!asked.run) {
            at[d] = 1;
            // A template asks for a stride to load a vector along it: any other
            // stride than 1 makes that load a gather of one element per lane.
            stride = std::llabs(plan.apply(at.data()) - origin);
            if (stride != 1) pieces = lanes;
          } else {
            // A template asks for a run to load whole vectors where it holds one:
            // a vector of lanes takes lanes / run loads (a gather where the run
            // is 1). The run from the origin stands for every run, as the stride
            // at the origin does above; the instance proves the exact one.
            const std::int64_t line_elements = std::max<std::int64_t>(1, kLineBytes / element_bytes);
            const std::int64_t longest = std::max(static_cast<std::int64_t>(lanes), 2 * line_elements);
            std::int64_t run = 1;
            bool broken = false;  // the run ends where the layout moves on, not where the dimension does
            while (run < longest && run < plan.shape()[d]) {
              at[d] = run;
              if (plan.apply(at.data()) != origin + run) {
                broken = true;
                break;
              }
              ++run;
            }
            if (run == 1) {  // a gather: its lanes' stride places them in the L1's sets
              at[d] = 1;
              stride = std::llabs(plan.apply(at.data()) - origin);
            }
            // Written in runs shorter than a line, each line is written in pieces at different times, and read first
            // (in_core_penalty prices the read where the machine skips it for whole lines). Only an output's: an
            // in-out tensor's lines are read anyway; only where the layout breaks the run (a row-major [N, 4]
            // continues into the next row); each tensor once, however many of its dimensions the template asks.
            if (tensor && tensor->role == kernel::Role::Out && broken && run < line_elements && written_in_parts.insert(asked.name).second)
              cost.bytes_in_parts += static_cast<double>(tensor->elements) * element_bytes;
            // In runs of a line or less (64 bytes of a row, the next 64 in another brick), each line streams alone:
            // its 128-byte neighbour holds other rows, touched a row later. stencil7 in bricks 16 x 16 x 16 ran
            // 1.3-1.6x the bricks 16 x 16 x 32 (pairs) on a Sapphire Rapids, in and out alike; one tensor so, about
            // half that. Shorter runs' lines are lone too, beside their runs' cycles and their writes in pieces (a
            // gather, a run of 1, is priced as one below).
            if (tensor && broken && run > 1 && run < 2 * line_elements && in_lone_lines.insert(asked.name).second)
              cost.bytes_in_lone_lines += static_cast<double>(tensor->elements) * element_bytes;
            // The instance proves a power of two (a run of 6 reads as 2), and a template divides vectors by it.
            std::int64_t in_vector = std::min(run, static_cast<std::int64_t>(lanes));
            while (in_vector & (in_vector - 1)) in_vector &= in_vector - 1;
            pieces = lanes / std::max<double>(1.0, static_cast<double>(in_vector));
            relative = lanes / std::max<double>(2.0, static_cast<double>(in_vector));
          }
        }
        if (pieces <= 1) continue;
        cost.log_without_roof += std::log(std::max(1.0, relative > 0 ? relative : lanes / 2.0));
        // A tensor the kernel writes is stored; a layout that is not a tensor (nw's H, read and written) is priced as read:
        // a placeholder does not say which side of an assignment it is on.
        const bool written = tensor && tensor->role != kernel::Role::In;
        const double elements = tensor ? static_cast<double>(tensor->elements) : largest;
        const auto sites = access_sites_.find(asked.name);
        const double vectors = elements / lanes * (sites == access_sites_.end() ? 1 : sites->second);
        // Runs shorter than a vector (more than one element each: not a gather) are each a position and a copy the
        // template codes per run, instructions beside the kernel's own that no memory time hides: added, not overlapped.
        if (asked.run && pieces < lanes)
          cost.run_cycles += vectors * (pieces - 1) * kRunCycles;
        else
          cost.cycles += vectors * (written ? (pieces - 1) / kStorePorts : (pieces - 1) / kLoadPorts);
        // A read gather's lanes each load a line the next steps reuse only where the layout is contiguous along its last
        // index, which a kernel's innermost loop walks (nw's R by rows: 16 tiles' rows, each read along the next 32
        // cells); contiguous along another (layer norm's column-major X, whose rows the outermost loop walks), every
        // lane's line leaves the caches before its neighbours are read, and the gather costs lanes / 2 of the time
        // whatever bounds it (X by columns ran 25x X by rows on a Sapphire Rapids).
        if (!written && pieces == lanes && !reused_along_last(plan, asked.step.empty() ? asked.dimension : plan.rank()))
          cost.log_unreused += std::log(std::max(1.0, lanes / 2.0));
        if (pieces == lanes) {
          const double in_one_set = lines_in_one_set(stride, element_bytes, asked.declared && trip > 0 ? trip : lanes);
          lines_in_set += in_one_set;
          if (written && in_one_set > 0) thrashable_stores += vectors * lanes;
        }
      }
      // The gathers whose lanes share an L1 set share it with each other too (tensors start page aligned).
      if (target_.l1d_bytes > 0 && lines_in_set > l1_ways(target_)) cost.cycles += kThrashedStoreCycles * thrashable_stores;
    } catch (const LegoError&) {
      // a variant whose layouts do not bind: its run will say why
    }
    return cost;
  });
}

// Every core's cycles in a millisecond (at 3 GHz where the clock is unknown).
double Features::cycles_per_ms() const {
  constexpr double kUnknownGhz = 3;
  return (target_.ghz > 0 ? target_.ghz : kUnknownGhz) * 1e6 * std::max(1, target_.cores);
}

// The index code's time (index_ms) and the gathers' (gather_cost) are the
// core's, beside the roofline's time for the bytes and FLOPs: the variant
// takes the longer. The gathers' cycles count each element once, which
// holds where the bytes bound the kernel (each element moves about once);
// where the FLOPs do, its loads feed the arithmetic from the caches many
// times over (a matmul's panels), and a gather or short run slows that loop
// by its lanes / 2 (lanes / run) as a whole. Where the bytes bound it, the
// short runs' cycles are added to the longer of the two, and lines written
// in pieces add their reads, and lone lines their extra, to the memory's time.
double Features::in_core_penalty(const kernel::Variant& v) const {
  const GatherCost gathers = gather_cost(v);
  const double bytes_ms = machine_.bandwidth_gbs > 0 ? declared(space_->spec().bytes, v) / (machine_.bandwidth_gbs * 1e6) : 0;
  const double flops_ms = machine_.peak_gflops > 0 ? declared(space_->spec().flops, v) / (machine_.peak_gflops * 1e6) : 0;
  const double roof_ms = std::max(bytes_ms, flops_ms);
  // No roof to compare with (an unknown machine, a kernel without bytes or FLOPs), or a CUDA kernel (its lanes are
  // threads, not this CPU's): the relative price.
  if (roof_ms <= 0 || space_->spec().backend != kernel::Backend::Cpu) return gathers.log_without_roof;
  const double index = index_ms(v);
  // A variant that does not instantiate or bind cannot run: last, not first (every one that runs pays something).
  if (index < 0) return kUnrunnablePenalty;
  const bool bytes_bound = bytes_ms >= flops_ms;
  const double in_core_ms = index + (bytes_bound ? gathers.cycles / cycles_per_ms() : 0.0);
  // A line written in pieces is read first, where the machine skips that read for a line written whole: the
  // measured copy in parts over the whole-line copy (partial_line_cost) prices each such byte, with the byte
  // it was copied from, at that much more of the memory's time.
  const double parts_ms = machine_.partial_line_cost > 1 && machine_.bandwidth_gbs > 0
                              ? 2 * gathers.bytes_in_parts * (machine_.partial_line_cost - 1) / (machine_.bandwidth_gbs * 1e6)
                              : 0.0;
  // A tensor accessed in runs of a line or less streams lone lines: each costs what the ceilings measured a lone
  // line at over one of a pair (lone_line_cost), as the walk prices a transpose's lone destination lines.
  const double lone_ms = machine_.lone_line_cost > 1 && machine_.bandwidth_gbs > 0
                             ? gathers.bytes_in_lone_lines * (machine_.lone_line_cost - 1) / (machine_.bandwidth_gbs * 1e6)
                             : 0.0;
  const double memory_ms = std::max(bytes_ms + parts_ms + lone_ms, flops_ms);
  const double runs_ms = bytes_bound ? gathers.run_cycles / cycles_per_ms() : 0.0;  // else in log_without_roof
  return std::log((std::max(memory_ms, in_core_ms) + runs_ms) / roof_ms) + (bytes_bound ? gathers.log_unreused : gathers.log_without_roof);
}

}  // namespace lego::search
