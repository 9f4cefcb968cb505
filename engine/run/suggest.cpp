#include "run/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>
#include <tuple>

#include "analysis/accesses.hpp"
#include "analysis/placement_score.hpp"
#include "expr/diagnostic.hpp"
#include "layout/candidates.hpp"
#include "layout/derive.hpp"
#include "layout/make_plan.hpp"
#include "layout/untiled_view.hpp"
#include "poly/isl_layout.hpp"
#include "run/analyze.hpp"
#include "run/sweep_driver.hpp"

namespace lego::run {

namespace {

constexpr const char* kTraced = "__suggest_row";  // the alternative the trace stores the buffer in

// The buffer's alternatives in a copy of the spec: a shared layout or a tensor.
std::vector<kernel::LayoutChoice>* alternatives_of(kernel::KernelSpec& spec, const std::string& buffer) {
  for (auto& l : spec.layouts)
    if (l.name == buffer) return &l.alternatives;
  for (auto& t : spec.tensors)
    if (t.name == buffer) return &t.layouts;
  std::string known;
  for (const auto& l : spec.layouts) known += (known.empty() ? "" : ", ") + l.name;
  for (const auto& t : spec.tensors) known += (known.empty() ? "" : ", ") + t.name;
  throw LegoError("kernel " + spec.name + " has no buffer or tensor named \"" + buffer + "\" (it has: " + known + ")");
}

// The buffer's accesses from one trace with it stored row-major (R x C):
// the offsets are then row * C + column, logical coordinates every
// candidate maps to its own offsets.
analysis::BufferTrace trace_buffer(WorkerClient& worker, kernel::KernelSpec spec, kernel::Variant variant, const std::string& buffer,
                                   std::int64_t columns, const SuggestOptions& options, const std::atomic<bool>* cancel) {
  variant.layout_choice[buffer] = kTraced;
  AnalyzeOptions analyze;
  analyze.archs = {};
  analyze.thread_map = true;
  analyze.timeout_s = options.timeout_s;
  const VariantAnalysis a = analyze_variant(worker, spec, variant, analyze, cancel);
  if (a.status != Status::Ok || !a.accesses)
    throw LegoError("tracing " + spec.name + " with " + buffer + " row-major failed: " + status_text(a.status) + ": " + a.message);
  analysis::BufferTrace t;
  t.columns = columns;
  const auto& sites = a.accesses->report.sites;
  // analyze_trace reads a record's site as an index into every site of the kernel.
  for (const auto& s : sites) t.sites.push_back(s.info);
  for (std::size_t k = 0; k < sites.size(); ++k) {
    if (sites[k].info.name != buffer || !a.accesses->touches[k]) continue;
    t.bytes[sites[k].info.site] = sites[k].bytes;
    t.access_bytes[sites[k].info.site] = sites[k].access_bytes;
    for (const auto& touch : a.accesses->touches[k]->touches)
      t.accesses.push_back(
          {sites[k].info.site, touch.step, touch.thread, touch.phase, touch.occurrence, touch.offset / columns, touch.offset % columns});
  }
  if (t.accesses.empty()) throw LegoError("the trace of " + spec.name + " has no access of " + buffer);
  return t;
}

// The project's own alternatives first (a placement found twice keeps the
// user's name and text), then the algebra's (layout/candidates).
std::vector<LayoutCandidate> enumerate(std::int64_t rows, std::int64_t columns, int bytes,
                                       const std::vector<kernel::LayoutChoice>& project) {
  std::vector<LayoutCandidate> out;
  const auto add = [&](std::string name, std::string family, std::string text, LayoutAst layout) {
    out.push_back({});
    out.back().name = std::move(name);
    out.back().family = std::move(family);
    out.back().text = std::move(text);
    out.back().layout = std::move(layout);
  };
  for (const auto& choice : project)
    if (choice.name != kTraced) add("project:" + choice.name, "project", choice.text, choice.ast);
  for (auto& c : buffer_candidates(rows, columns, bytes)) {
    std::string text = print(c.layout, Spacing::Readable);  // before the move: arguments are evaluated in no fixed order
    add(c.name, c.family, std::move(text), std::move(c.layout));
  }
  return out;
}

// ISL's verdict on the candidate's layout over its whole box (a padded
// one's wider box: bijective there is one-to-one on the buffer's box).
std::string isl_proof(const LayoutCandidate& c, const Env& env) {
  try {
    const poly::IslVerdict v = poly::isl_check_layout(as_buffer_reads_it(c.layout), env, {});
    if (v.status == poly::IslStatus::Bijective)
      return c.extra_elements > 0 ? fmt::format("ISL: bijective on its {}x{} box, so one-to-one on the buffer", c.shape[0], c.shape[1])
                                  : "ISL: bijective";
    if (v.status == poly::IslStatus::NotBijective) return "ISL: not bijective: " + v.evidence;
    if (v.evidence.rfind("apply is not quasi-affine", 0) == 0)
      return "ISL: undecided (XOR, a product of indices or isqrt is outside Presburger arithmetic); checked at every index";
    return "ISL: undecided (" + v.evidence + "); checked at every index";
  } catch (const LegoError& e) {
    return std::string("ISL: undecided (") + e.what() + "); checked at every index";
  }
}

// The placement's scores (analysis/placement_score), its index ops, ISL's
// verdict, and the reason for its rank.
void score(LayoutCandidate& c, const analysis::BufferTrace& t, const std::vector<std::int64_t>& offsets, const Env& env) {
  const analysis::PlacementScore s = analysis::score_placement(t, offsets);
  c.worst_ways = s.worst_ways;
  c.mean_ways = s.mean_ways;
  c.excess_wavefronts = s.excess_wavefronts;
  c.sectors_per_request = s.sectors_per_request;
  c.lines_per_access = s.lines_per_access;
  c.vector_elements = s.vector_elements;
  c.worst_lane_bank = s.worst_lane_bank;
  for (const auto& site : s.sites) c.sites.push_back({site.access, site.line, site.ways, site.excess_wavefronts});
  try {
    DeriveRequest request;
    request.indices = {"i", "j"};
    c.ops = derive(as_buffer_reads_it(c.layout), env, request).ops;
  } catch (const LegoError&) {
    c.ops = -1;
  }
  c.proof = isl_proof(c, env);
  std::string why;
  if (s.shared_sites && c.worst_ways > 1)
    why = "conflicts: " + s.worst_site + fmt::format("; {} excess wavefronts", c.excess_wavefronts);
  else if (s.shared_sites)
    why = "conflict-free on every shared access";
  if (s.global_sites) why += (why.empty() ? "" : "; ") + fmt::format("{:.2f} sectors per global request", c.sectors_per_request);
  if (s.host_sites) why += (why.empty() ? "" : "; ") + fmt::format("{:.3f} cache lines per access", c.lines_per_access);
  why += c.extra_elements > 0 ? fmt::format("; {} elements of padding", c.extra_elements) : "; no extra memory";
  if (c.vector_elements > 1) why += fmt::format("; {}-wide vector accesses", c.vector_elements);
  if (c.ops >= 0) why += fmt::format("; {} index ops", c.ops);
  c.reason = why;
}

constexpr std::size_t kWidthsScored = 20;

auto rank_key(const LayoutCandidate& c) {
  return std::tuple(c.excess_wavefronts, std::max(c.worst_ways, 1), std::max(c.sectors_per_request, 0.0), std::max(c.lines_per_access, 0.0),
                    -c.vector_elements, c.extra_elements, c.ops < 0 ? 1 << 20 : c.ops, c.family == "project" ? 0 : 1, c.name);
}

}  // namespace

bool ranks_before(const LayoutCandidate& a, const LayoutCandidate& b) { return rank_key(a) < rank_key(b); }

std::string suggested_alternative_name(const std::string& candidate) {
  std::string name;
  for (char ch : candidate.rfind("project:", 0) == 0 ? candidate.substr(8) : candidate)
    name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  while (!name.empty() && name.back() == '_') name.pop_back();
  return "suggested_" + name;
}

Suggestions suggest_layouts(WorkerClient& worker, const kernel::KernelSpec& spec_in, const std::string& buffer,
                            const SuggestOptions& options, const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  kernel::KernelSpec spec = spec_in;
  std::vector<kernel::LayoutChoice>* alternatives = alternatives_of(spec, buffer);
  const kernel::VariantSpace space = kernel::enumerate_variants(spec, {0, 1, options.sets});
  if (space.variants.empty()) throw LegoError("no variant of " + spec.name + " satisfies the constraints at these sizes");
  const kernel::Variant& base = space.variants.front();
  const Env& env = base.parameters;
  // The logical shape: the smallest box every alternative holds (a padded
  // alternative is wider than the box the kernel reads).
  std::vector<std::int64_t> shape;
  std::size_t rank = 64;
  for (const auto& choice : *alternatives) rank = std::min(rank, logical_rank(choice.ast));
  if (rank != 2)
    throw LegoError(fmt::format("{} is {}-D; lego suggest searches layouts of 2-D buffers (a tile, a shared buffer)", buffer, rank));
  for (const auto& choice : *alternatives) {
    const Plan plan = make_plan(untiled_view(choice.ast, 2), env);
    if (shape.empty()) shape = plan.shape();
    if (plan.shape().size() != shape.size()) throw LegoError(buffer + "'s alternatives have different ranks");
    for (std::size_t k = 0; k < shape.size(); ++k) shape[k] = std::min(shape[k], plan.shape()[k]);
  }
  if (shape.size() != 2)
    throw LegoError(
        fmt::format("{} is {}-D; lego suggest searches layouts of 2-D buffers (a tile, a shared buffer)", buffer, shape.size()));
  const std::int64_t rows = shape[0], columns = shape[1];
  const std::vector<kernel::LayoutChoice> project = *alternatives;
  const LayoutAst traced_layout = row_major_layout(rows, columns);
  alternatives->push_back({kTraced, print(traced_layout, Spacing::Readable), traced_layout});
  const analysis::BufferTrace traced = trace_buffer(worker, spec, base, buffer, columns, options, cancel);

  Suggestions out;
  out.kernel = spec.name;
  out.buffer = buffer;
  out.variant = base.id;
  out.shape = shape;
  out.element_bytes = traced.bytes.begin()->second;
  std::vector<LayoutCandidate> candidates = enumerate(rows, columns, out.element_bytes, project);
  out.enumerated = candidates.size();
  if (candidates.size() > options.max_candidates) {
    out.pruning = fmt::format("{} candidates enumerated; the first {} scored (raise --max-candidates to score all)", candidates.size(),
                              options.max_candidates);
    candidates.resize(options.max_candidates);
  }
  std::set<std::vector<std::int64_t>> seen;                                          // one candidate per distinct placement
  std::vector<std::pair<LayoutCandidate, const std::vector<std::int64_t>*>> scored;  // each with its placement in `seen`
  for (LayoutCandidate& c : candidates) {
    if (cancel && cancel->load()) throw LegoError("cancelled");
    std::optional<Placement> placed;
    try {
      placed = place_buffer(c.layout, env, rows, columns);
    } catch (const LegoError&) {
      placed.reset();  // a parameter the GenP rejects at this shape
    }
    const auto [placement, fresh] = placed ? seen.insert(std::move(placed->offsets)) : std::pair{seen.end(), false};
    // A layout that breaks an ldmatrix row or a cp.async piece apart cannot run the kernel.
    if (!fresh || !analysis::widened_access_problem(traced, *placement).empty()) {
      ++out.rejected;
      continue;
    }
    c.shape = placed->shape;
    c.extra_elements = placed->extra_elements;
    c.bijective = c.extra_elements == 0;
    score(c, traced, *placement, env);
    scored.emplace_back(std::move(c), &*placement);
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return ranks_before(a.first, b.first); });
  // Other element widths only for those shown first and the project's own:
  // they do not rank.
  for (std::size_t k = 0; k < scored.size(); ++k) {
    LayoutCandidate& c = scored[k].first;
    if (k < kWidthsScored || c.family == "project") c.ways_by_width = analysis::ways_by_width(traced, *scored[k].second, c.worst_ways);
    out.ranked.push_back(std::move(scored[k].first));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

void verify_candidates(WorkerClient& worker, const kernel::KernelSpec& spec_in, Suggestions& suggestions, std::size_t count,
                       const SuggestOptions& options, const std::atomic<bool>* cancel) {
  kernel::KernelSpec spec = spec_in;
  std::vector<kernel::LayoutChoice>* alternatives = alternatives_of(spec, suggestions.buffer);
  count = std::min(count, suggestions.ranked.size());
  for (std::size_t k = 0; k < count; ++k)
    alternatives->push_back({fmt::format("suggest{}", k + 1), suggestions.ranked[k].text, suggestions.ranked[k].layout});
  const kernel::VariantSpace space = kernel::enumerate_variants(spec, {0, 1, options.sets});
  const auto base =
      std::find_if(space.variants.begin(), space.variants.end(), [&](const kernel::Variant& v) { return v.id == suggestions.variant; });
  if (base == space.variants.end()) throw LegoError("the traced variant " + suggestions.variant + " is gone");
  std::vector<PreparedVariant> prepared;
  for (std::size_t k = 0; k < count; ++k) {
    kernel::Variant v = *base;
    v.layout_choice[suggestions.buffer] = fmt::format("suggest{}", k + 1);
    v.id = suggestions.ranked[k].name;
    prepared.push_back(prepare_variant(spec, v, options.target));
  }
  std::vector<const PreparedVariant*> order;
  for (const auto& p : prepared) order.push_back(&p);
  SweepOptions sweep;
  sweep.run.time = false;
  sweep.run.cache = true;
  sweep.timeout_s = options.timeout_s;
  sweep.baselines = false;
  sweep.verify_smaller = true;
  sweep.target = options.target;
  Roof roof;
  const SweepResult result = run_sweep(worker, spec, order, roof, sweep, {}, cancel);
  for (std::size_t k = 0; k < result.outcomes.size() && k < count; ++k) {
    const Outcome& o = result.outcomes[k];
    LayoutCandidate& c = suggestions.ranked[k];
    c.verified = o.verified;
    c.verification = o.verified ? (o.verified_at.empty() ? "verified" : "verified at " + o.verified_at)
                                : std::string(status_text(o.status)) + (o.message.empty() ? "" : ": " + o.message);
  }
}

}  // namespace lego::run
