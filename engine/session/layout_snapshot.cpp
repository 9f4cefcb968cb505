#include "session/layout_snapshot.hpp"

#include <chrono>

#include "analysis/banks.hpp"
#include "expr/parser.hpp"
#include "layout/derive.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/symbolic.hpp"
#include "layout/untiled_view.hpp"
#include "layout/verify.hpp"
#include "poly/isl_layout.hpp"

namespace lego::session {

namespace {

std::string code_of(const DeriveResult& r) {
  std::string out;
  for (const auto& [name, value] : r.temporaries) out += r.index_type + " " + name + " = " + value + ";\n";
  for (std::size_t k = 0; k < r.exprs.size(); ++k) out += (r.exprs.size() > 1 ? "i" + std::to_string(k) + " = " : "") + r.exprs[k] + "\n";
  return out;
}

// The tensor's own coordinates: untiled for TileBy. An ExpandBy narrows the
// untiled box as it narrows the tiled one, so the view untiles what it wraps
// (the composer's ExpandBy drop on a TileBy of several levels draws).
LayoutAst tensor_view_of(const LayoutAst& layout) {
  const std::size_t rank = layout.closing == Closing::TileBy && !layout.groups.empty() ? layout.groups[0].size() : logical_rank(layout);
  if (!layout.expand_to || layout.closing != Closing::TileBy) return untiled_view(layout, rank);
  LayoutAst inner = layout;
  inner.expand_to.reset();
  LayoutAst view = untiled_view(inner, rank);
  view.expand_to = layout.expand_to;
  return view;
}

// The rewrites as the panel lists them; a long chain is cut (it says so).
std::vector<std::string> rewrites_of(const DeriveResult& r) {
  constexpr std::size_t kMaxShown = 64;
  std::vector<std::string> out;
  for (std::size_t k = 0; k < r.steps.size() && k < kMaxShown; ++k) out.push_back(to_string(r.steps[k]));
  if (r.steps.size() > kMaxShown) out.push_back("... and " + std::to_string(r.steps.size() - kMaxShown) + " more (lego expr --explain)");
  return out;
}

// Per level (outermost first, the innermost level has no border), per
// dimension, the extent one tile of that level spans.
// Each cell's tile of span `span`, numbered row-major over the tiles.
std::vector<std::int64_t> outer_tiles(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& span) {
  std::int64_t cells = 1;
  for (std::int64_t e : shape) cells *= e;
  std::vector<std::int64_t> tiles(static_cast<std::size_t>(cells));
  for (std::int64_t cell = 0; cell < cells; ++cell) {
    std::vector<std::int64_t> c(shape.size());
    std::int64_t rest = cell;
    for (std::size_t k = shape.size(); k-- > 0;) c[k] = rest % shape[k], rest /= shape[k];
    std::int64_t id = 0;
    for (std::size_t k = 0; k < shape.size() && k < span.size(); ++k) id = id * (shape[k] / span[k]) + c[k] / span[k];
    tiles[static_cast<std::size_t>(cell)] = id;
  }
  return tiles;
}

std::vector<std::vector<std::int64_t>> tile_spans_of(const LayoutAst& layout, const Env& env) {
  std::vector<std::vector<std::int64_t>> spans;
  if (layout.closing != Closing::TileBy || layout.groups.size() < 2) return spans;
  const std::size_t rank = layout.groups[0].size();
  for (std::size_t level = 1; level < layout.groups.size(); ++level) {
    std::vector<std::int64_t> span(rank, 1);
    for (std::size_t inner = level; inner < layout.groups.size(); ++inner)
      for (std::size_t k = 0; k < rank; ++k) span[k] *= evaluate(layout.groups[inner][k], env);
    spans.push_back(span);
  }
  return spans;
}

std::vector<LayoutSnapshot::BankWalk> bank_walks_of(const Plan& plan) {
  std::vector<LayoutSnapshot::BankWalk> out;
  for (const auto& w : analysis::standard_walks(plan, 4)) {
    LayoutSnapshot::BankWalk b;
    b.name = w.name;
    b.max_ways = w.report.max_ways;
    b.mean_ways = w.report.mean_ways;
    b.steps = w.steps;
    b.excess_wavefronts = w.report.excess_wavefronts;
    b.worst_step = w.report.worst_step;
    b.lane_bank = w.report.worst_lane_bank;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

Env parse_sizes(const std::string& text) {
  Env env;
  std::string item;
  auto flush = [&] {
    if (item.empty()) return;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) throw LegoError("sizes: '" + item + "' is not name=value");
    const std::string name = item.substr(0, eq);
    const Expr value = parse_expression(item.substr(eq + 1));
    env[name] = evaluate(value, env);
    item.clear();
  };
  for (char c : text) {
    if (c == ',' || c == ' ' || c == ';' || c == '\n' || c == '\t')
      flush();
    else
      item += c;
  }
  flush();
  return env;
}

Placement place(std::int64_t x, std::int64_t threads) {
  Placement p;
  threads = std::max<std::int64_t>(threads, 1);
  p.thread = x % threads;
  p.step = x / threads;
  p.warp = p.thread / 32;
  p.lane = p.thread % 32;
  p.bank = x % 32;  // 4-byte words, 32 banks
  return p;
}

std::int64_t warp_count(std::int64_t threads) { return place(std::max<std::int64_t>(threads, 1) - 1, threads).warp + 1; }

void check_layout(const LayoutAst& layout, const Env& env) {
  make_plan(layout, env);
  make_plan(tensor_view_of(layout), env);
}

LayoutSnapshot build_snapshot(std::uint64_t generation, const std::string& text, const std::string& bindings) {
  const auto start = std::chrono::steady_clock::now();
  LayoutSnapshot s;
  s.generation = generation;
  s.text = text;
  s.bindings = bindings;
  try {
    const LayoutAst layout = parse_layout(text);
    Env env;
    try {
      env = parse_sizes(bindings);
    } catch (const LegoError& e) {
      throw LegoError(e.diagnostic().message + " (in the sizes box)");
    }
    const auto free = free_symbols(layout, env);
    if (!free.empty()) {
      s.unbound.assign(free.begin(), free.end());
      std::string names;
      for (const auto& n : free) names += (names.empty() ? "" : ", ") + n;
      throw LegoError("give the sizes " + names + " a value in the sizes box (e.g. " + *free.begin() + "=8)");
    }
    const Plan original = make_plan(layout, env);  // first: its errors point into the user's text
    const LayoutAst view = tensor_view_of(layout);
    const Plan plan = make_plan(view, env);
    const std::size_t rank = plan.shape().size();
    s.physical_size = plan.physical_size();
    if (plan.size() > kMaxCells) {  // too many to draw; the check and the expressions still help
      s.not_drawn = "the tensor has " + std::to_string(plan.size()) + " cells: bind smaller sizes to draw it (at most " +
                    std::to_string(kMaxCells) + "); the check and the index expressions are in their panel";
    } else {
      s.shape = plan.shape();
      s.tile_spans = tile_spans_of(layout, env);
      s.apply.resize(static_cast<std::size_t>(plan.size()));
      plan.apply_all(s.apply.data());
      s.inverse.assign(static_cast<std::size_t>(s.physical_size), -1);
      for (std::size_t k = 0; k < s.apply.size(); ++k)
        if (const auto x = s.apply[k]; x >= 0 && x < s.physical_size) s.inverse[static_cast<std::size_t>(x)] = static_cast<std::int64_t>(k);
      if (!s.tile_spans.empty()) s.tile = outer_tiles(s.shape, s.tile_spans.front());
      if (!plan.layout().expand && plan.has_inverse()) s.bank_walks = bank_walks_of(plan);
    }
    const BijectivityReport r = check_bijective(original);
    s.verdict = std::string(!r.checked ? "unknown" : r.bijective ? "bijective" : "not bijective") + ": " + r.evidence;
    s.layout_class = to_string(original.classify());
    const poly::IslVerdict isl = poly::isl_check_layout(layout, env, {});
    s.isl = std::string(poly::to_string(isl.status)) + ": " + isl.evidence;

    DeriveRequest apply_request;
    apply_request.explain = true;
    for (std::size_t k = 0; k < rank; ++k) apply_request.indices.push_back("i" + std::to_string(k));
    const DeriveResult a = derive(view, env, apply_request);
    s.apply_code = code_of(a);
    s.apply_ops = a.ops;
    s.apply_rewrites = rewrites_of(a);
    if (plan.has_inverse() && !plan.layout().expand) {
      DeriveRequest inv_request;
      inv_request.inverse = true;
      inv_request.indices = {"x"};
      inv_request.explain = true;
      const DeriveResult i = derive(view, env, inv_request);
      s.inv_code = code_of(i);
      s.inv_ops = i.ops;
      s.inv_rewrites = rewrites_of(i);
    }
    s.ok = true;
  } catch (const LegoError& e) {
    const Span span = e.diagnostic().span;
    if (span.known() && span.begin <= text.size()) {
      s.error_begin = span.begin;
      s.error_end = std::min(std::max(span.end, span.begin), text.size());
      const LineColumn lc = line_column(text, span.begin);
      s.error = std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " + e.diagnostic().message;
    } else {
      s.error = e.diagnostic().message;
    }
  } catch (const std::exception& e) {
    s.error = std::string("internal error: ") + e.what();
  }
  s.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return s;
}

}  // namespace lego::session
