#include "search/features.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "expr/diagnostic.hpp"
#include "expr/lexer.hpp"
#include "kernel/binding.hpp"
#include "kernel/instantiate.hpp"
#include "kernel/placeholder.hpp"
#include "layout/make_plan.hpp"
#include "layout/untiled_view.hpp"
#include "search/walk.hpp"

namespace lego::search {

Features::Features(const kernel::LazySpace& space, const target::Target& target, MachineFigures machine)
    : space_(&space), target_(target), machine_(machine) {
  const auto& axes = space.axes();
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].size() < 2) continue;
    (axes[a].is_layout ? layout_axes_ : numeric_axes_).push_back(a);
  }
  for (std::size_t a : layout_axes_)
    for (const auto& c : axes[a].choices) {
      raw_.push_back(names_.size());
      names_.push_back(axes[a].name + "=" + c);
    }
  for (std::size_t a : numeric_axes_) {
    raw_.push_back(names_.size());
    names_.push_back("log2 " + axes[a].name);
    names_.push_back("(log2 " + axes[a].name + ")^2");
  }
  for (std::size_t i = 0; i < numeric_axes_.size(); ++i)
    for (std::size_t j = i + 1; j < numeric_axes_.size(); ++j)
      names_.push_back("log2 " + axes[numeric_axes_[i]].name + " x log2 " + axes[numeric_axes_[j]].name);
  for (std::size_t a : layout_axes_)
    for (const auto& c : axes[a].choices)
      for (std::size_t n : numeric_axes_) names_.push_back(axes[a].name + "=" + c + " x log2 " + axes[n].name);
  if (space.spec().register_tile) {
    names_.push_back("register tile / vector registers");
    names_.push_back("(register tile / vector registers)^2");
  }
  try {
    find_sites(kernel::parse_placeholders(space.spec().template_text, space.spec().template_name));
  } catch (const LegoError&) {
    asked_strides_.clear();  // a template that does not parse: its error is reported when a variant is made
    walk_sites_.clear();
  }
  // The project's declared vector loop walks these indices as the template's stride asks do (one the template also
  // asks for is that ask, walked by the declared loop).
  if (space.spec().vector_loop)
    for (const kernel::VectorWalk& w : space.spec().vector_loop->along) {
      const auto same = std::find_if(asked_strides_.begin(), asked_strides_.end(), [&](const AskedVector& a) {
        return a.name == w.name && a.dimension == w.index && !a.run && a.step == w.step;
      });
      if (same == asked_strides_.end())
        asked_strides_.push_back({w.name, w.index, false, w.step, true});
      else
        same->declared = true;
    }
  if (!walk_sites_.empty())
    for (const char* what :
         {"L1 misses per access", "L2 misses per access", "TLB misses per access", "an element at a time", "log2 innermost loop",
          "partly streamed lines per access", "page walks per access", "streamed lines per access", "unprefetched misses per access",
          "lone streamed lines per access", "paired streamed lines per access", "four-line streamed runs per access"})
      names_.push_back(std::string("walk: ") + what);
  if (!inverted_.empty()) names_.push_back("index operations");
  if (prior_ranks()) names_.push_back("static penalty (log)");
  // Which parameters each asked view depends on: the names its
  // alternatives' text mentions (GenP bodies included, which the parsed
  // layout keeps as text) and, for a tensor, its extents' symbols.
  // The project parsed these texts with the same lexer; should one not
  // tokenize, the view counts as depending on every parameter.
  bool unread = false;
  const auto identifiers = [&unread](const std::string& text, std::set<std::string>& into) {
    try {
      for (const Token& t : tokenize(text))
        if (t.kind == Tok::Ident) into.insert(std::string(t.text));
    } catch (const LegoError&) {
      unread = true;
    }
  };
  const kernel::KernelSpec& spec = space.spec();
  for (const AskedVector& a : asked_strides_) gather_views_.push_back(a.name);
  // A gather's count of accesses is its tensor's size, or the largest tensor's for a layout; a declared trip its lanes.
  if (!asked_strides_.empty()) {
    for (const auto& t : spec.tensors) gather_views_.push_back(t.name);
    if (spec.vector_loop && spec.vector_loop->trip) {
      std::set<std::string> words;
      collect_symbols(*spec.vector_loop->trip, words);
      std::vector<std::string>& params = view_parameters_[kTripView];
      for (const auto& p : spec.parameters)
        if (words.count(p.name)) params.push_back(p.name);
      gather_views_.push_back(kTripView);
    }
  }
  if (!inverted_.empty()) {
    for (const auto& t : spec.tensors) index_views_.push_back(t.name);
    for (const auto& l : spec.layouts) index_views_.push_back(l.name);
    // The template's own text names parameters too (flat=FLAT, constants), and they change its index code.
    const auto named = kernel::identifiers_in_code(spec.template_text);
    std::vector<std::string>& params = view_parameters_[kTemplateView];
    for (const auto& p : spec.parameters)
      if (named.count(p.name)) params.push_back(p.name);
    index_views_.push_back(kTemplateView);
  }
  std::set<std::string> viewed(gather_views_.begin(), gather_views_.end());
  viewed.insert(walk_views_.begin(), walk_views_.end());
  viewed.insert(index_views_.begin(), index_views_.end());
  for (const std::string& name : viewed) {
    std::set<std::string> words;
    for (const auto& t : spec.tensors)
      if (t.name == name) {
        for (const auto& c : t.layouts) identifiers(c.text, words);
        for (const auto& e : t.extents) collect_symbols(e, words);
      }
    for (const auto& l : spec.layouts)
      if (l.name == name)
        for (const auto& c : l.alternatives) identifiers(c.text, words);
    std::vector<std::string>& params = view_parameters_[name];
    for (const auto& p : spec.parameters)
      if (unread || words.count(p.name)) params.push_back(p.name);
  }
}

std::vector<double> Features::of(const kernel::Variant& v) const {
  const auto& axes = space_->axes();
  std::vector<double> f;
  f.reserve(names_.size());
  std::vector<double> onehot;
  for (std::size_t a : layout_axes_) {
    const auto it = v.layout_choice.find(axes[a].name);
    for (const auto& c : axes[a].choices) onehot.push_back(it != v.layout_choice.end() && it->second == c ? 1.0 : 0.0);
  }
  std::vector<double> logs;
  for (std::size_t a : numeric_axes_) {
    const auto it = v.parameters.find(axes[a].name);
    logs.push_back(it == v.parameters.end() || it->second < 1 ? 0.0 : std::log2(static_cast<double>(it->second)));
  }
  f.insert(f.end(), onehot.begin(), onehot.end());
  for (double l : logs) {
    f.push_back(l);
    f.push_back(l * l);
  }
  for (std::size_t i = 0; i < logs.size(); ++i)
    for (std::size_t j = i + 1; j < logs.size(); ++j) f.push_back(logs[i] * logs[j]);
  for (double o : onehot)
    for (double l : logs) f.push_back(o * l);
  if (space_->spec().register_tile) {
    double fill = 0;
    try {
      const kernel::RegisterTile& tile = *space_->spec().register_tile;
      const Env env = kernel::with_target(v.parameters, target_);
      const double lanes = std::max(1, target_.lanes(static_cast<int>(kernel::element_bytes(tile.type))));
      fill = static_cast<double>(evaluate(tile.rows, env)) * static_cast<double>(evaluate(tile.columns, env)) / lanes /
             std::max(1, target_.vector_registers);
    } catch (const LegoError&) {
      fill = 0;  // a tile the parameters cannot size: the project's error, reported when it runs
    }
    f.push_back(fill);
    f.push_back(fill * fill);
  }
  if (!walk_sites_.empty())
    for (const double misses : walk_misses(v)) f.push_back(misses);
  if (!inverted_.empty()) f.push_back(std::max(0, index_ops(v)));
  if (prior_ranks()) f.push_back(static_log_penalty(v));
  return f;
}

void Features::find_sites(const std::vector<kernel::Placeholder>& placeholders) {
  const kernel::placeholder::For* loop = nullptr;
  const auto site = [&](const kernel::placeholder::Access& a) {
    WalkSite w{a.name, {}, {}, false};
    for (const std::string& index : a.indices) {
      const auto at = std::find(loop->names.begin(), loop->names.end(), index);
      if (at != loop->names.end()) {
        w.coordinate.push_back(static_cast<int>(at - loop->names.begin()));
        w.constant.push_back(0);
      } else if (!index.empty() && index.size() <= 18 &&
                 std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        // At most 18 digits: an int64 (a longer constant is past any extent: not placed, as an expression is not).
        w.coordinate.push_back(-1);
        w.constant.push_back(std::stoll(index));
      } else {
        return;  // an index the loop does not give (an inner loop's, an expression): not placed
      }
    }
    if (!a.shared && !a.arithmetic) walk_sites_.push_back(std::move(w));  // arithmetic: no memory touched
  };
  int depth = 0;
  for (std::size_t k = 0; k < placeholders.size(); ++k) {
    const kernel::Placeholder& p = placeholders[k];
    if (const auto* a = std::get_if<kernel::placeholder::Access>(&p.form); a && !a->arithmetic) ++access_sites_[a->name];
    if (const auto* m = std::get_if<kernel::placeholder::Move>(&p.form)) ++access_sites_[m->src.name], ++access_sites_[m->dst.name];
    // The same ask twice (a template that loads X's rows in two places) is one vector access of X: its sites count it.
    const auto ask = [&](const std::string& name, std::size_t dimension, bool run) {
      if (std::none_of(asked_strides_.begin(), asked_strides_.end(),
                       [&](const AskedVector& a) { return a.name == name && a.dimension == dimension && a.run == run && a.step.empty(); }))
        asked_strides_.push_back({name, dimension, run, {}});
    };
    if (const auto* s = std::get_if<kernel::placeholder::Stride>(&p.form)) ask(s->name, s->dimension, false);
    if (const auto* r = std::get_if<kernel::placeholder::Run>(&p.form)) ask(r->name, r->dimension, true);
    // The first inversion only (a template inverts its loop's layout once per element); CPU code only (the roof is
    // the CPU's scalar ALUs).
    if (const auto* i = std::get_if<kernel::placeholder::Inverse>(&p.form);
        i && inverted_.empty() && space_->spec().backend == kernel::Backend::Cpu)
      inverted_ = i->layout;
    if (const auto* f = std::get_if<kernel::placeholder::For>(&p.form)) {
      if (!loop) {
        loop = f;
        walk_loop_placeholder_ = k;
      }
      ++depth;
    }
    if (std::holds_alternative<kernel::placeholder::End>(p.form)) --depth;
    // Only the first loop's own body: a nested loop's accesses follow its order.
    if (!loop || depth != 1) continue;
    if (const auto* m = std::get_if<kernel::placeholder::Move>(&p.form)) {
      walk_moves_ = true;
      site(m->src);
      site(m->dst);
    } else if (const auto* a = std::get_if<kernel::placeholder::Access>(&p.form)) {
      site(*a);
    }
  }
  // Only what the project declares: a loop over a layout it names and
  // accesses of its tensors at their rank (else every variant's walk would
  // fail to bind, each under a key of its own).
  const kernel::KernelSpec& spec = space_->spec();
  const auto tensor_of = [&](const std::string& name) -> const kernel::TensorSpec* {
    for (const auto& t : spec.tensors)
      if (t.name == name) return &t;
    return nullptr;
  };
  std::erase_if(walk_sites_, [&](const WalkSite& w) {
    const kernel::TensorSpec* t = tensor_of(w.tensor);
    return !t || t->extents.size() != w.coordinate.size();
  });
  for (WalkSite& w : walk_sites_) w.written = tensor_of(w.tensor)->role != kernel::Role::In;
  const bool named =
      loop && (std::any_of(spec.layouts.begin(), spec.layouts.end(), [&](const auto& l) { return l.name == loop->layout; }) ||
               tensor_of(loop->layout));
  if (named && !walk_sites_.empty()) {
    walk_loop_ = loop->layout;
    walk_rank_ = loop->names.size();
    walk_flat_ = loop->flat;
    walk_views_.push_back(walk_loop_);
    double bytes = 0;
    for (const WalkSite& w : walk_sites_) {
      walk_views_.push_back(w.tensor);
      bytes += static_cast<double>(kernel::element_bytes(tensor_of(w.tensor)->type));  // every site left is a tensor's
    }
    walk_element_bytes_ = bytes / static_cast<double>(walk_sites_.size());
  } else {
    walk_sites_.clear();
  }
}

double Features::prior_log_ms(const kernel::Variant& v) const { return roofline_log_ms(v) + static_log_penalty(v); }

namespace {

// Cycles per k step of a BM x BN outer-product register tile over the
// cycles its FMAs need: each k step issues BM * BN / lanes FMAs (one per
// accumulator), BN / lanes vector loads and BM broadcasts. The step takes at
// least the FMA latency (each accumulator depends on its previous value),
// the FMAs over the pipes, and the loads over two load ports, plus a cycle
// of loop overhead; BLIS's analytical model of the micro-kernel reasons
// the same way (Low et al., TOMS 2016).
double tile_efficiency(double rows, double columns, const target::Target& t, int element_bytes) {
  const double lanes = std::max(1, t.lanes(element_bytes));
  const double vectors = std::ceil(columns / lanes), accumulators = rows * vectors;
  if (accumulators <= 0) return 1;
  // FMAs per cycle at the full vector width: a pipe narrower than the vector takes several issues.
  const double fma_rate = std::max(0.25, t.fma_pipes * std::min(1.0, static_cast<double>(t.fma_bytes) / t.vector_bytes));
  constexpr double kFmaLatency = 4, kLoadPorts = 2, kLoopCycles = 1;
  const double busy = accumulators / fma_rate;
  const double step = std::max({kFmaLatency, busy, (vectors + rows) / kLoadPorts}) + kLoopCycles;
  double efficiency = busy / step;
  // Accumulators, the B vectors and a broadcast beyond the register file spill every step.
  const double live = accumulators + vectors + 1;
  if (live > t.vector_registers) efficiency *= t.vector_registers / live / 2;
  return efficiency;
}

}  // namespace

double Features::static_log_penalty(const kernel::Variant& v) const {
  double penalty = 0;
  const kernel::KernelSpec& spec = space_->spec();
  if (spec.register_tile) {
    try {
      const Env env = kernel::with_target(v.parameters, target_);
      const double eff = tile_efficiency(static_cast<double>(evaluate(spec.register_tile->rows, env)),
                                         static_cast<double>(evaluate(spec.register_tile->columns, env)), target_,
                                         static_cast<int>(kernel::element_bytes(spec.register_tile->type)));
      if (eff > 0) penalty -= std::log(std::min(1.0, eff));
    } catch (const LegoError&) {
      // a tile the parameters cannot size: no opinion
    }
  }
  return penalty + in_core_penalty(v) + walk_penalty(v) + trip_penalty(v);
}

double Features::declared_trip(const kernel::Variant& v) const {
  const auto& loop = space_->spec().vector_loop;
  if (!loop || !loop->trip) return 0;
  try {
    return static_cast<double>(evaluate(*loop->trip, kernel::with_target(v.parameters, target_)));
  } catch (const LegoError&) {
    return 0;  // a trip the parameters cannot evaluate: the variant's run says why
  }
}

// A loop shorter than a vector leaves lanes empty, and one that reduces
// costs about one vector iteration besides its own on each entry (the
// horizontal sum, the setup): layer norm's blocks of 16 columns on 16 lanes
// ran 2.1x its blocks of 1024. One without a reduction whose trip is whole
// vectors is straight vector code (the trip is a constant the compiler
// unrolls): nw's 16 tiles in lanes ran 1.4x ahead of 32 on 16 lanes, where
// the entry's iteration had priced 32 ahead.
double Features::trip_penalty(const kernel::Variant& v) const {
  const auto& loop = space_->spec().vector_loop;
  if (!loop || !loop->trip) return 0;
  try {
    const double trip = declared_trip(v);
    if (trip < 1) return 0;
    // Lanes of the first tensor the loop walks (of 4-byte elements where it walks only layouts).
    int element_bytes = 4;
    const auto& tensors = space_->spec().tensors;
    for (const kernel::VectorWalk& w : loop->along)
      if (const auto t = std::find_if(tensors.begin(), tensors.end(), [&](const kernel::TensorSpec& x) { return x.name == w.name; });
          t != tensors.end()) {
        element_bytes = static_cast<int>(kernel::element_bytes(t->type));
        break;
      }
    const double lanes = std::max(1, target_.lanes(element_bytes));
    // ceil(trip / lanes) vector iterations, and one more of overhead where it reduces, for trip / lanes vectors' work.
    return std::log((std::ceil(trip / lanes) + (loop->reduction ? 1 : 0)) * lanes / trip);
  } catch (const LegoError&) {
    return 0;  // a trip the parameters cannot evaluate: the variant's run says why
  }
}

int Features::index_ops(const kernel::Variant& v) const {
  if (inverted_.empty()) return -1;
  return memoized(ops_cache_, views_key(index_views_, v), [&] {
    int ops = -1;
    try {
      kernel::InstantiateOptions options;
      options.target = target_;
      const kernel::Instance instance = kernel::instantiate(space_->spec(), v, sym::Lang::C, options);
      ops = 0;
      for (const kernel::Expansion& x : instance.expansions) ops += x.ops;
    } catch (const LegoError&) {
      // a variant that does not instantiate: its run says why
    }
    return ops;
  });
}

std::string Features::views_key(const std::vector<std::string>& names, const kernel::Variant& v) const {
  std::string key;
  for (const std::string& name : names) {
    const auto found = view_parameters_.find(name);
    if (found == view_parameters_.end()) continue;
    const std::vector<std::string>& params = found->second;
    const auto choice = v.layout_choice.find(name);
    key += name + "=" + (choice == v.layout_choice.end() ? "" : choice->second) + ";";
    for (const auto& p : params) {
      const auto value = v.parameters.find(p);
      key += p + "=" + (value == v.parameters.end() ? "?" : std::to_string(value->second)) + ",";
    }
  }
  return key;
}

bool Features::flat_walk(const kernel::Variant& v) const {
  if (!walk_flat_ || !*walk_flat_) return false;
  try {
    return evaluate(*walk_flat_, kernel::with_target(v.parameters, target_)) != 0;
  } catch (const LegoError&) {
    return false;  // an expression the parameters cannot evaluate: the variant's run says why
  }
}

std::vector<double> Features::walk_misses(const kernel::Variant& v) const {
  if (walk_sites_.empty()) return std::vector<double>(kWalkCounts, 0.0);
  std::vector<double> misses = walk_misses_of_order(v);
  if (flat_walk(v)) misses[3] = 1;
  return misses;
}

std::optional<kernel::Instance::RegisterTranspose> Features::register_transpose(const kernel::Variant& v) const {
  try {
    kernel::InstantiateOptions options;
    options.target = target_;
    const kernel::Instance instance = kernel::instantiate(space_->spec(), v, sym::Lang::C, options);
    for (const auto& moved : instance.register_transposes)
      if (moved.loop == walk_loop_placeholder_) return moved;
  } catch (const LegoError&) {
    // a variant that does not instantiate: its run says why
  }
  return std::nullopt;
}

std::vector<double> Features::walk_misses_of_order(const kernel::Variant& v) const {
  // The flat form walks element by element whatever the layouts make of the move.
  const bool flat = flat_walk(v);
  return memoized(
      walk_cache_, views_key(walk_views_, v) + (flat ? "|flat" : ""),
      [&] {
        std::vector<double> misses(kWalkCounts, 0.0);
        try {
          const kernel::Binding binding = kernel::bind_variant(space_->spec(), v);
          const Env env = kernel::with_target(v.parameters, target_);
          const kernel::NamedView* loop = binding.view(walk_loop_);
          if (!loop) throw LegoError("no loop layout");
          // The loop's coordinates are the layout's untiled ones, as the loop nest reads them.
          const Plan order = make_plan(untiled_view(loop->ast, walk_rank_), env);
          std::vector<Plan> layouts;
          layouts.reserve(walk_sites_.size());  // the accesses point into it
          std::vector<WalkAccess> accesses;
          std::vector<const WalkSite*> sites;  // per access
          for (const WalkSite& w : walk_sites_) {
            const kernel::NamedView* view = binding.view(w.tensor);
            const kernel::BoundTensor* tensor = binding.tensor(w.tensor);
            if (!view || !tensor) continue;
            // Indexed by the tensor's own coordinates: a tiled layout's untiled view.
            LayoutAst indexed;
            try {
              indexed = untiled_view(view->ast, w.coordinate.size());
            } catch (const LegoError&) {
              continue;  // neither it nor its untiled view has the access's rank: not placed
            }
            layouts.push_back(make_plan(indexed, env));
            if (layouts.back().rank() != static_cast<int>(w.coordinate.size())) {
              layouts.pop_back();
              continue;
            }
            accesses.push_back(
                {&layouts.back(), w.coordinate, w.constant, static_cast<int>(kernel::element_bytes(tensor->type)), false, w.written});
            sites.push_back(&w);
          }
          if (!accesses.empty()) {
            // The code walks the loop as generated: where the layouts make
            // its move a register transpose, a tile at a time, the written
            // side streamed (which only the generated code can say).
            WalkTile tile;
            // Only a move can become one (kernel/loop_code): other loops are not instantiated.
            if (const auto moved = flat || !walk_moves_ ? std::nullopt : register_transpose(v)) {
              tile = {moved->tile, moved->outer_coordinate, moved->inner_coordinate};
              for (std::size_t a = 0; a < accesses.size(); ++a) accesses[a].streamed = moved->stream && sites[a]->tensor == moved->dst;
            }
            const WalkCounts counts = walk(order, accesses, target_, 1 << 15, tile);
            misses = {counts.l1_misses,
                      counts.l2_misses,
                      counts.tlb_misses,
                      counts.vectorizes ? 0.0 : 1.0,
                      std::log2(static_cast<double>(std::max<std::int64_t>(1, counts.inner_run))),
                      counts.partial_streamed_lines,
                      counts.page_walks,
                      counts.streamed_lines,
                      counts.unprefetched_misses,
                      counts.lone_streamed_lines,
                      counts.paired_streamed_lines,
                      counts.quad_streamed_lines};
          }
        } catch (const LegoError&) {
          // a variant whose layouts do not bind or plan: its run will say why
        }
        return misses;
      },
      kWalkCacheKeys);
}

// The walk's misses priced against a walk that misses each line once: an L2
// miss is a line from L3 or memory, the unit; a line L1 misses and L2 has
// costs a quarter of one (L2's bandwidth is about four times memory's per
// core), a first-level TLB miss a quarter (the second level's few cycles),
// a page walk half (its entries are cached), and a line
// streamed in part four more (its write-combining buffer goes to memory
// half empty, and the memory merges it: 8x8 register transposes streaming
// 32-byte rows of an 8192^2 transpose ran 4-5x the 16x16 ones' 64-byte
// rows on a Sapphire Rapids).
//
// Where everything the kernel moves fits in the last-level cache, a line L2
// misses comes from L3 at about 0.4 of a line from memory, but a streamed
// line still goes to memory: at 2048^2 (32 MiB) on a Sapphire Rapids the
// plain copies into column tiles ran 0.60 ms and the streamed register
// transposes 0.72, at 8192^2 (512 MiB) 26 ms against 16.6.
//
// A streamed line whose neighbours no store near it wrote costs what the
// ceilings measured such a line at, over one of a 128-byte pair
// (run::Roof's lone_line_cost): 1.9x on a Zen 5 guest, whose register
// transposes of 16 (lone destination lines 1 KiB apart) ran 1.9x its
// transposes of 32 (pairs), where a Sapphire Rapids ran them alike. Pairs
// and longer runs are priced as lines (the walk counts them as a feature
// only): transposes of 32 and of 64 ran alike on both machines.
// The ceilings also measure a streamed pair's and four-line run's line
// against one of a 4 KiB run (run::Roof's pair_line_cost, quad_line_cost:
// 3.4x and 2.0x on a Zen 5 guest, whose 8192^2 register transposes ran
// 1.3-2.9x behind copies into column tiles that the walk prices 1.5x
// behind them). They are not priced yet: priced, they took transpose2d's
// replay from 15.8 evaluations to 1.8 and 3d_021's from 5.4 to 1.0, but
// 3d_210's from 2.0 to 8.0 and 4d_3210's from 1.0 to 4.0, where pairs ran
// with runs of four (3.77 against 3.99 ms): a write-only stream overprices
// them in a kernel that reads as much. The walk counts them as features.
//
// A missed line that no prefetch fetched ahead (it did not continue its
// page's ascending run) waits for memory: half a line more, the ratio of
// transpose3d_210's slabs of 16, whose rows interleave within each page, to
// its 32 x 32 tiles, whose rows each ascend (4.03 against 3.38 ms, 1.19x,
// on a Sapphire Rapids; the walk priced them 1.17x so).
double Features::walk_penalty(const kernel::Variant& v) const {
  constexpr double kUnprefetched = 0.5;
  if (walk_sites_.empty()) return 0;
  const std::vector<double> m = walk_misses(v);
  const double bytes = declared(space_->spec().bytes, v);  // 0 where it cannot be evaluated: taken as not resident
  // L3 as the target declares it, or as measured where that is more (a virtual machine may not tell).
  const double l3 = std::max(static_cast<double>(target_.l3_bytes), machine_.resident_bytes);
  const double from_l3 = bytes > 0 && bytes <= l3 ? 0.4 : 1.0;
  const double lone = std::max(0.0, machine_.lone_line_cost - 1);
  const double cost =
      from_l3 * (m[1] - m[7]) + m[7] + 0.25 * m[0] + 0.25 * m[2] + 4 * m[5] + 0.5 * m[6] + kUnprefetched * m[8] + lone * m[9];
  // The compulsory misses: each 64-byte line of the accesses' elements once, in L1 and L2.
  const double compulsory = (from_l3 + 0.25) * walk_element_bytes_ / 64;
  // A body an element at a time does a vector's work in `lanes` steps, of
  // which the memory system hides about half.
  const double lanes = std::max(1, target_.lanes(4));
  const double scalar = m[3] > 0 ? std::log(std::max(1.0, lanes / 2.0))
                                 // a vector body whose innermost loop is shorter than a vector: that fraction of it
                                 : (m[4] > 0 ? std::max(0.0, std::log(lanes) - m[4] * std::log(2.0)) : 0.0);
  return scalar + (cost > compulsory ? std::log(cost / compulsory) : 0.0);
}

double Features::roofline_log_ms(const kernel::Variant& v) const {
  const double ms = roofline_ms(v);
  return ms > 0 ? std::log(ms) : 0.0;
}

double Features::declared(const Expr& e, const kernel::Variant& v) const {
  if (!e) return 0;
  try {
    return static_cast<double>(evaluate(e, kernel::with_target(v.parameters, target_)));
  } catch (const LegoError&) {
    return 0;
  }
}

double Features::roofline_ms(const kernel::Variant& v) const {
  const double bytes = declared(space_->spec().bytes, v), flops = declared(space_->spec().flops, v);
  double ms = 0;
  if (machine_.bandwidth_gbs > 0) ms = std::max(ms, bytes / (machine_.bandwidth_gbs * 1e6));
  if (machine_.peak_gflops > 0) ms = std::max(ms, flops / (machine_.peak_gflops * 1e6));
  return ms;
}

}  // namespace lego::search
