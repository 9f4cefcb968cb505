#include "kernel/loop_code.hpp"

#include <algorithm>

#include "layout/make_plan.hpp"

namespace lego::kernel {
namespace {

// OpenMP collapses the leading whole-range loops until they hold this many
// iterations: a static schedule then splits them over up to 64 threads with
// every thread busy, where the outermost loop alone (4 tiles of a 64x64
// transpose, say) leaves most cores idle. Collapsing further costs a div and
// a mod per iteration to recover the loop variables, for no better balance.
constexpr std::int64_t kParallelIterations = 64;

// The register micro-kernel for a lone move: the innermost loop and the
// nearest loop outside it that swap the sides' contiguous dimensions step
// by the tile. Loops between the two stay as they are, each a whole
// rectangular range, so every point is still moved once: a tile of the
// outer loop's strip is moved for each of their iterations. That lets an
// iteration layout walk a few slices of a middle dimension per strip (a
// 3-D transpose's j), keeping the pages both sides touch few.
// When it finds none for a lone move, `scalar_why` says why (else it stays empty).
std::optional<TransposeChoice> choose_microkernel(const OpenNest& n, std::vector<LoopLine>& lines, const target::Target& target,
                                                  std::vector<std::string>& notes, std::string& scalar_why) {
  if (n.moves.size() != 1 || lines.size() < 2) return std::nullopt;
  const NestMove& m = n.moves[0];
  LoopLine& inner = lines.back();
  if (!inner.whole) return std::nullopt;
  InnerLoops loops;
  loops.inner = inner.var;
  loops.inner_extent = inner.extent;
  for (const auto& l : n.nest.loops) loops.steps[l.var] = 1;
  std::string why_not, first_why_not;
  for (std::size_t o = lines.size() - 1; o-- > 0;) {
    LoopLine& outer = lines[o];
    if (!outer.whole) break;
    loops.outer = outer.var;
    loops.outer_extent = outer.extent;
    if (auto choice = choose_transpose(loops, m.src_shape, m.dst_shape, m.stream, target, why_not)) {
      outer.step = inner.step = choice->tile;
      notes.push_back(m.dst + " = " + m.src + ": " + choice->note);
      return choice;
    }
    if (first_why_not.empty()) first_why_not = why_not;
  }
  scalar_why = first_why_not.empty() ? "the innermost loops are not whole ranges" : first_why_not;
  return std::nullopt;
}

// Whether a lone move's innermost loop writes consecutive elements of one
// tensor from consecutive (or the same) elements of another: the loop
// vectorizes as plain vector moves, and, as two tensors never share memory
// (each has a buffer of its own; an exported kernel asks the same of its
// caller), no iteration reads what another writes. A parallel nest of one
// loop is not marked: OpenMP's pragma must be followed by the loop itself.
bool contiguous_move(const OpenNest& n, const std::vector<LoopLine>& lines) {
  if (n.moves.size() != 1 || lines.empty() || (n.loop.parallel && lines.size() < 2)) return false;
  const NestMove& m = n.moves[0];
  const LoopLine& inner = lines.back();
  if (!inner.whole || inner.var.empty() || inner.step != 1 || m.dst == m.src) return false;
  const auto stride = [&](const AccessShape& shape) {
    const auto s = shape.strides.find(inner.var);
    return s == shape.strides.end() ? std::int64_t{-1} : s->second;
  };
  const std::int64_t dst = stride(m.dst_shape), src = stride(m.src_shape);
  return dst == 1 && (src == 0 || src == 1);
}

// How many leading loops OpenMP collapses: never one a micro-kernel steps,
// nor any inside it.
int collapsed_loops(const std::vector<LoopLine>& lines) {
  int collapse = 0;
  std::int64_t iterations = 1;
  while (collapse < static_cast<int>(lines.size()) && iterations < kParallelIterations && lines[static_cast<std::size_t>(collapse)].whole &&
         lines[static_cast<std::size_t>(collapse)].step == 1)
    iterations *= lines[static_cast<std::size_t>(collapse++)].extent;
  return collapse;
}

}  // namespace

std::string print(const LoopLine& line) {
  if (!line.whole) return line.isl_text;
  const std::string& v = line.var;
  return "for (int64_t " + v + " = 0; " + v + " < " + std::to_string(line.extent) + "; " +
         (line.step == 1 ? "++" + v : v + " += " + std::to_string(line.step)) + ") {";
}

std::vector<LoopLine> loop_lines(const poly::LoopNest& nest) {
  std::vector<LoopLine> lines;
  for (std::size_t h = 0; h < nest.headers.size(); ++h) {
    LoopLine line;
    line.var = nest.header_loop[h];
    line.whole = std::count(nest.rectangular.begin(), nest.rectangular.end(), static_cast<int>(h)) > 0;
    line.isl_text = nest.headers[h];
    for (const auto& l : nest.loops)
      if (l.var == line.var) line.extent = l.extent;
    lines.push_back(std::move(line));
  }
  return lines;
}

OpenNest open_nest(const placeholder::For& loop, std::size_t placeholder, const LayoutAst& view, const Env& parameters, bool flat) {
  OpenNest n;
  n.placeholder = placeholder;
  n.loop = loop;
  poly::LoopNestResult r =
      flat ? poly::LoopNestResult{{}, "the flat form was asked for (flat=)"} : poly::build_loop_nest(view, parameters, loop.names);
  n.nest = std::move(r.nest);
  n.flat_fallback = r.fallback;
  if (!n.flat_fallback.empty()) {
    n.flat_size = make_plan(view, parameters).physical_size();
    n.note = loop.layout + ": one flat loop with " + loop.layout + ".inv per element; " + n.flat_fallback;
  } else {
    n.lines = loop_lines(n.nest);
    n.note = loop.layout + ": " + std::to_string(n.nest.loops.size()) + " nested loops from its digits (ISL" +
             (n.nest.guarded ? ", guarded partial tiles)" : ")");
  }
  return n;
}

void define_nest_indices(const std::vector<OpenNest>& nests, const std::vector<std::string>& indices, DeriveRequest& request) {
  for (const auto& a : indices)
    for (auto n = nests.rbegin(); n != nests.rend(); ++n) {
      if (!n->flat_fallback.empty()) continue;
      const auto c = std::find(n->loop.names.begin(), n->loop.names.end(), a);
      if (c == n->loop.names.end()) continue;
      auto& terms = request.index_definitions[a];
      for (const auto& l : n->nest.loops)
        if (l.coordinate == c - n->loop.names.begin()) terms.emplace_back(l.var, l.multiplier);
      for (const auto& l : n->nest.loops)
        if (std::none_of(request.loop_variables.begin(), request.loop_variables.end(),
                         [&](const LoopVariable& v) { return v.name == l.var; }))
          request.loop_variables.push_back({l.var, l.extent});
      break;
    }
}

NestCode close_nest(const OpenNest& n, bool lone_move, const target::Target& target) {
  NestCode out;
  if (!n.flat_fallback.empty()) {
    out.open = (n.loop.parallel ? "_Pragma(\"omp parallel for schedule(static)\") " : "") + n.flat_code;
    out.close = "}";
    return out;
  }
  std::vector<LoopLine> lines = n.lines;
  std::optional<TransposeChoice> micro;
  std::string scalar_why;
  if (lone_move) micro = choose_microkernel(n, lines, target, out.notes, scalar_why);
  out.microkernel = micro.has_value();
  out.transpose = micro;
  if (micro) {
    out.move_code = transpose_call(*micro, n.moves[0].src_code, n.moves[0].dst_code);
    const auto coordinate_of = [&](const std::string& var) {
      for (const auto& l : n.nest.loops)
        if (l.var == var && l.multiplier == 1) return l.coordinate;
      return -1;
    };
    for (const LoopLine& line : lines)
      if (line.step == micro->tile) (out.outer_coordinate < 0 ? out.outer_coordinate : out.inner_coordinate) = coordinate_of(line.var);
  }
  const bool stream = micro && micro->stream;
  const bool marked = lone_move && !micro && !n.loop.simd && contiguous_move(n, lines);
  // OpenMP never collapses the marked loop: a pragma between collapsed loops is an error for GCC.
  const int collapse = marked ? std::min(collapsed_loops(lines), static_cast<int>(lines.size()) - 1) : collapsed_loops(lines);
  bool region = false;  // an omp parallel block of our own, closed after the fence
  if (n.loop.parallel) {
    const std::string clause = " schedule(static)" + (collapse > 1 ? " collapse(" + std::to_string(collapse) + ")" : std::string());
    if (lines.empty() || lines[0].var.empty())
      out.notes.push_back(n.loop.layout + ": not parallel (the nest does not start with a loop)");
    else if ((region = stream))  // each thread fences its own streamed stores before the region's barrier
      out.open = "_Pragma(\"omp parallel\") { _Pragma(\"omp for" + clause + " nowait\") ";
    else
      out.open = "_Pragma(\"omp parallel for" + clause + "\") ";
  }
  // Clang leaves such a loop scalar inside an OpenMP region (the outlined
  // body loses what keeps the tensors apart, and the alias checks it would
  // need are too many), or unrolls a row of 16 and moves it by gathers and
  // scatters: 4.9x slower on an 8192^2 transpose into column tiles of 16.
  out.contiguous_move = marked;
  if (!scalar_why.empty())
    out.notes.push_back(n.moves[0].dst + " = " + n.moves[0].src +
                        (marked ? ": marked for vectors along " + lines.back().var + " (no register transpose: " : ": scalar move (") +
                        scalar_why + ")");
  for (std::size_t h = 0; h < lines.size(); ++h) {
    if (n.loop.simd && h + 1 == lines.size() && !lines[h].var.empty() && !out.microkernel) out.open += "_Pragma(\"omp simd\") ";
    if (out.contiguous_move && h + 1 == lines.size()) out.open += "LEGO_CONTIGUOUS_MOVE ";
    out.open += print(lines[h]) + " ";
  }
  out.open += poly::coordinate_declarations(n.nest);
  out.close = std::string(lines.size(), '}');
  if (stream) out.close += region ? " lego_store_fence(); }" : " lego_store_fence();";
  return out;
}

std::string contiguous_move_prelude() {
  // GCC, like Clang, unrolls a row of 16 before it vectorizes and then leaves it scalar (2x slower): no unrolling there either.
  return "// LEGO_CONTIGUOUS_MOVE marks a copy's innermost loop, contiguous on both sides, to be vectorized\n"
         "// without overlap checks: the kernel's tensors must not overlap.\n"
         "#if defined(__CUDACC__)\n#define LEGO_CONTIGUOUS_MOVE\n"
         "#elif defined(__clang__)\n#define LEGO_CONTIGUOUS_MOVE _Pragma(\"clang loop vectorize(assume_safety) unroll(disable)\")\n"
         "#elif defined(__GNUC__)\n#define LEGO_CONTIGUOUS_MOVE _Pragma(\"GCC ivdep\") _Pragma(\"GCC unroll 1\")\n"
         "#else\n#define LEGO_CONTIGUOUS_MOVE\n#endif\n";
}

}  // namespace lego::kernel
