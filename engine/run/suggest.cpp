#include "run/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>
#include <tuple>

#include "analysis/accesses.hpp"
#include "expr/diagnostic.hpp"
#include "layout/derive.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
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

// One traced access of the buffer, as a logical coordinate, with the warp
// request it was part of.
struct Access {
  int site;
  std::int32_t step, thread, phase, occurrence;
  std::int64_t row, column;
};

// The buffer's accesses from one trace with it stored row-major (R x C):
// the offsets are then row * C + column.
struct Traced {
  std::vector<analysis::SiteInfo> sites;
  std::map<int, int> bytes;  // per site
  std::vector<Access> accesses;
};

Traced trace_buffer(WorkerClient& worker, kernel::KernelSpec spec, kernel::Variant variant, const std::string& buffer, std::int64_t columns,
                    const SuggestOptions& options, const std::atomic<bool>* cancel) {
  variant.layout_choice[buffer] = kTraced;
  AnalyzeOptions analyze;
  analyze.archs = {};
  analyze.thread_map = true;
  analyze.timeout_s = options.timeout_s;
  const VariantAnalysis a = analyze_variant(worker, spec, variant, analyze, cancel);
  if (a.status != Status::Ok || !a.accesses)
    throw LegoError("tracing " + spec.name + " with " + buffer + " row-major failed: " + status_text(a.status) + ": " + a.message);
  Traced t;
  const auto& sites = a.accesses->report.sites;
  // analyze_trace reads a record's site as an index into every site of the kernel.
  for (const auto& s : sites) t.sites.push_back(s.info);
  for (std::size_t k = 0; k < sites.size(); ++k) {
    if (sites[k].info.name != buffer || !a.accesses->touches[k]) continue;
    t.bytes[sites[k].info.site] = sites[k].bytes;
    for (const auto& touch : a.accesses->touches[k]->touches)
      t.accesses.push_back(
          {sites[k].info.site, touch.step, touch.thread, touch.phase, touch.occurrence, touch.offset / columns, touch.offset % columns});
  }
  if (t.accesses.empty()) throw LegoError("the trace of " + spec.name + " has no access of " + buffer);
  return t;
}

std::string row_major(std::int64_t rows, std::int64_t columns) {
  return fmt::format("OrderBy(Row({0}, {1})).GroupBy([({0}, {1})])", rows, columns);
}

// Candidates of the algebra for an R x C buffer of `bytes`-byte elements.
std::vector<LayoutCandidate> enumerate(std::int64_t rows, std::int64_t columns, int bytes,
                                       const std::vector<kernel::LayoutChoice>& project) {
  std::vector<LayoutCandidate> out;
  const auto add = [&](std::string name, std::string family, std::string text) {
    out.push_back({});
    out.back().name = std::move(name);
    out.back().family = std::move(family);
    out.back().text = std::move(text);
  };
  // The project's own first: a placement found twice keeps the user's name.
  for (const auto& choice : project)
    if (choice.name != kTraced) add("project:" + choice.name, "project", choice.text);
  add("row", "row", row_major(rows, columns));
  add("col", "col", fmt::format("OrderBy(Col({0}, {1})).GroupBy([({0}, {1})])", rows, columns));
  // Tiles (the RegP permutations of the tiled shape): a grid of tr x tc
  // tiles, each row- or column-major, the grid row- or column-major; they
  // keep a thread's block of the buffer together for lines and sectors.
  for (std::int64_t tr : {1, 2, 4, 8, 16, 32})
    for (std::int64_t tc : {1, 2, 4, 8, 16, 32}) {
      if (rows % tr != 0 || columns % tc != 0 || tr * tc < 8 || (tr == rows && tc == columns) || (tr == 1 && tc == columns) ||
          (tc == 1 && tr == rows))
        continue;
      const auto tiled = [&](const char* grid, const char* tile) {
        return fmt::format("OrderBy({0}({1}, {2}), {3}({4}, {5})).TileBy([{1}, {2}], [{4}, {5}])", grid, rows / tr, columns / tc, tile, tr,
                           tc);
      };
      add(fmt::format("tiles {}x{}", tr, tc), "tiled", tiled("Row", "Row"));
      add(fmt::format("tiles {}x{} col-major", tr, tc), "tiled", tiled("Row", "Col"));
      add(fmt::format("tiles {}x{} col-major grid", tr, tc), "tiled", tiled("Col", "Row"));
    }
  // Padding shifts each row by p elements, so a column walks the banks.
  for (std::int64_t p : {1, 2, 4, 8})
    if (p * bytes <= 32) add(fmt::format("padded+{}", p), "padded", row_major(rows, columns + p));
  if (rows == columns) {
    add("antidiag", "antidiag", fmt::format("OrderBy(GenP([{0}, {0}], antidiag)).TileBy([{0}, {0}])", rows));
    add("skew", "skew", fmt::format("OrderBy(GenP([{0}, {0}], skew)).TileBy([{0}, {0}])", rows));
  }
  // CuTe-style XOR swizzles: bits of the row flip bits of the column.
  for (int b = 1; b <= 5; ++b)
    for (int m = 0; m <= 3; ++m)
      for (int s = 1; s <= 7; ++s)
        add(fmt::format("swizzle({},{},{})", b, m, s), "swizzle",
            fmt::format("OrderBy(GenP([{0}, {1}], swizzle({2}, {3}, {4}))).GroupBy([({0}, {1})])", rows, columns, b, m, s));
  return out;
}

// A candidate indexed as the kernel indexes the buffer, (row, column): a
// tiled candidate's untiled view.
LayoutAst as_tensor_sees_it(const std::string& text) { return untiled_view(parse_layout(text), 2); }

// Bijective onto its footprint, or injective with padding; nullopt when the
// layout is neither, or does not hold the R x C box.
std::optional<std::vector<std::int64_t>> offsets_of(const LayoutCandidate& c, const Env& env, std::int64_t rows, std::int64_t columns,
                                                    LayoutCandidate& out) {
  const Plan plan = make_plan(as_tensor_sees_it(c.text), env);
  if (plan.rank() != 2 || plan.shape()[0] < rows || plan.shape()[1] < columns) return std::nullopt;
  std::vector<std::int64_t> all(static_cast<std::size_t>(plan.size()));
  plan.apply_all(all.data());
  std::vector<bool> seen(static_cast<std::size_t>(plan.physical_size()), false);
  for (std::int64_t x : all) {
    if (x < 0 || x >= plan.physical_size() || seen[static_cast<std::size_t>(x)]) return std::nullopt;
    seen[static_cast<std::size_t>(x)] = true;
  }
  out.shape = plan.shape();
  // Bijective from the buffer's box onto the footprint; a padded layout is
  // one-to-one with R * p positions no element reaches.
  out.extra_elements = plan.physical_size() - rows * columns;
  out.bijective = out.extra_elements == 0;
  // Where each element of the R x C box lives.
  std::vector<std::int64_t> box(static_cast<std::size_t>(rows * columns));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < columns; ++k)
      box[static_cast<std::size_t>(r * columns + k)] = all[static_cast<std::size_t>(r * plan.shape()[1] + k)];
  return box;
}

// The widest per-lane vector (elements, at most 16 bytes) every access of the
// buffer could use: each thread's consecutive steps read consecutive,
// aligned offsets.
int vector_elements(const Traced& t, const std::vector<std::int64_t>& box, std::int64_t columns) {
  std::map<std::pair<int, std::int32_t>, std::vector<std::int64_t>> by_thread;  // (site, thread) -> offsets by step
  for (const Access& a : t.accesses) {
    auto& v = by_thread[{a.site, a.thread}];
    if (v.size() <= static_cast<std::size_t>(a.step)) v.resize(static_cast<std::size_t>(a.step) + 1, -1);
    v[static_cast<std::size_t>(a.step)] = box[static_cast<std::size_t>(a.row * columns + a.column)];
  }
  int widest = 1;
  for (int width : {2, 4}) {
    bool ok = true;
    for (const auto& [key, offsets] : by_thread) {
      if (width * t.bytes.at(key.first) > 16 || offsets.size() % static_cast<std::size_t>(width) != 0) ok = false;
      for (std::size_t k = 0; ok && k < offsets.size(); k += static_cast<std::size_t>(width)) {
        if (offsets[k] < 0 || offsets[k] % width != 0) ok = false;
        for (int j = 1; ok && j < width; ++j) ok = offsets[k + static_cast<std::size_t>(j)] == offsets[k] + j;
      }
      if (!ok) break;
    }
    if (ok) widest = width;
  }
  return widest;
}

// The lanes that pile into one bank in the worst request: "lanes 0, 1, .., 31 on bank 0".
std::string collision(const analysis::SiteReport& s) {
  int bank = 0;
  std::int64_t most = -1;
  for (int b = 0; b < analysis::kBanks; ++b) {
    std::int64_t lanes = 0;
    for (int l = 0; l < analysis::kWarp; ++l) lanes += s.worst_lane_bank[static_cast<std::size_t>(l)][static_cast<std::size_t>(b)] > 0;
    if (lanes > most) most = lanes, bank = b;
  }
  std::vector<int> lanes;
  for (int l = 0; l < analysis::kWarp; ++l)
    if (s.worst_lane_bank[static_cast<std::size_t>(l)][static_cast<std::size_t>(bank)] > 0) lanes.push_back(l);
  std::string list;
  for (std::size_t k = 0; k < lanes.size(); ++k) {
    if (k == 3 && lanes.size() > 4) {
      list += ", .., " + std::to_string(lanes.back());
      break;
    }
    list += (k ? ", " : "") + std::to_string(lanes[k]);
  }
  return fmt::format("lanes {} on bank {}", list, bank);
}

// ISL's verdict on the candidate's layout over its whole box (a padded
// one's wider box: bijective there is one-to-one on the buffer's box).
std::string isl_proof(const LayoutCandidate& c, const Env& env) {
  try {
    const poly::IslVerdict v = poly::isl_check_layout(as_tensor_sees_it(c.text), env, {});
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

// The traced accesses with the candidate's offsets.
std::vector<analysis::TraceRecord> trace_records(const Traced& t, const std::vector<std::int64_t>& box, std::int64_t columns) {
  std::vector<analysis::TraceRecord> records;
  records.reserve(t.accesses.size());
  for (const Access& a : t.accesses)
    records.push_back(
        {a.site, a.phase, a.occurrence, a.thread, 0, box[static_cast<std::size_t>(a.row * columns + a.column)], t.bytes.at(a.site), 0});
  return records;
}

// The worst bank ways of the candidate's shared accesses with 4-, 8- and
// 16-byte elements (the element's own width was scored by score()).
void score_widths(LayoutCandidate& c, const Traced& t, const std::vector<std::int64_t>& box, std::int64_t columns) {
  if (c.worst_ways < 0) return;
  std::vector<analysis::TraceRecord> records = trace_records(t, box, columns);
  for (std::size_t w = 0; w < 3; ++w) {
    const int bytes = 4 << w;
    if (std::all_of(t.bytes.begin(), t.bytes.end(), [&](const auto& site) { return site.second == bytes; })) {
      c.ways_by_width[w] = std::max(c.worst_ways, 1);
      continue;
    }
    for (auto& r : records) r.bytes = bytes;
    int worst = 1;
    for (const auto& s : analysis::analyze_trace(t.sites, records).sites)
      if (s.executions > 0 && t.bytes.count(s.info.site) && s.info.kind == analysis::MemoryKind::Shared)
        worst = std::max(worst, s.max_ways);
    c.ways_by_width[w] = worst;
  }
}

void score(LayoutCandidate& c, const Traced& t, const std::vector<std::int64_t>& box, std::int64_t columns, const Env& env) {
  const analysis::AccessReport report = analysis::analyze_trace(t.sites, trace_records(t, box, columns));
  int shared = 0, global = 0, host = 0;
  double mean = 0, sectors = 0, lines = 0;
  std::string worst_site;
  for (const auto& s : report.sites) {
    if (s.executions == 0 || !t.bytes.count(s.info.site)) continue;  // another buffer's access
    if (s.info.kind == analysis::MemoryKind::Shared) {
      ++shared;
      mean += s.mean_ways;
      c.excess_wavefronts += s.excess_wavefronts;
      c.sites.push_back({s.info.placeholder, s.info.line, s.max_ways, s.excess_wavefronts});
      if (s.max_ways > c.worst_ways) {
        c.worst_ways = s.max_ways;
        c.worst_lane_bank = s.worst_lane_bank;
        worst_site = fmt::format("{} (line {}): {}-way, {}", s.info.placeholder, s.info.line, s.max_ways, collision(s));
      }
    } else if (s.info.kind == analysis::MemoryKind::Global) {
      ++global;
      sectors += s.sectors_per_request;
    } else {
      ++host;
      lines += s.lines_per_access;
    }
  }
  if (shared) c.mean_ways = mean / shared;
  if (global) c.sectors_per_request = sectors / global;
  if (host) c.lines_per_access = lines / host;
  c.vector_elements = vector_elements(t, box, columns);
  try {
    DeriveRequest request;
    request.indices = {"i", "j"};
    c.ops = derive(as_tensor_sees_it(c.text), env, request).ops;
  } catch (const LegoError&) {
    c.ops = -1;
  }
  c.proof = isl_proof(c, env);
  std::string why;
  if (shared && c.worst_ways > 1)
    why = "conflicts: " + worst_site + fmt::format("; {} excess wavefronts", c.excess_wavefronts);
  else if (shared)
    why = "conflict-free on every shared access";
  if (global) why += (why.empty() ? "" : "; ") + fmt::format("{:.2f} sectors per global request", c.sectors_per_request);
  if (host) why += (why.empty() ? "" : "; ") + fmt::format("{:.3f} cache lines per access", c.lines_per_access);
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
  const std::string traced_text = row_major(rows, columns);
  alternatives->push_back({kTraced, traced_text, parse_layout(traced_text)});
  const Traced traced = trace_buffer(worker, spec, base, buffer, columns, options, cancel);

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
    std::optional<std::vector<std::int64_t>> box;
    try {
      box = offsets_of(c, env, rows, columns, c);
    } catch (const LegoError&) {
      box.reset();  // a parameter the GenP rejects at this shape
    }
    const auto [placement, fresh] = box ? seen.insert(std::move(*box)) : std::pair{seen.end(), false};
    if (!fresh) {
      ++out.rejected;
      continue;
    }
    score(c, traced, *placement, columns, env);
    scored.emplace_back(std::move(c), &*placement);
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return ranks_before(a.first, b.first); });
  // Other element widths only for those shown first and the project's own:
  // they do not rank.
  for (std::size_t k = 0; k < scored.size(); ++k) {
    if (k < kWidthsScored || scored[k].first.family == "project") score_widths(scored[k].first, traced, *scored[k].second, columns);
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
    alternatives->push_back({fmt::format("suggest{}", k + 1), suggestions.ranked[k].text, parse_layout(suggestions.ranked[k].text)});
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
