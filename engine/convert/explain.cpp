#include "convert/explain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "expr/diagnostic.hpp"
#include "layout/cute.hpp"

namespace lego::convert {

const char* const kElementNames = "f16 (fp16, half), bf16, f32 (fp32, float), tf32, s32, f64 (fp64, double), s8, u8, f8";

int element_bytes(const std::string& name) {
  static const std::map<std::string, int> sizes = {{"f8", 1},   {"s8", 1},   {"u8", 1},  {"f16", 2},  {"fp16", 2},
                                                   {"half", 2}, {"bf16", 2}, {"f32", 4}, {"fp32", 4}, {"float", 4},
                                                   {"tf32", 4}, {"s32", 4},  {"f64", 8}, {"fp64", 8}, {"double", 8}};
  const auto found = sizes.find(name);
  if (found == sizes.end()) throw LegoError("element type " + name + ": one of " + kElementNames);
  return found->second;
}

namespace {

// The element type a conversion moves: the one asked for, checked against
// the atoms on either side, or the atoms' own. An epilogue converts the
// accumulators to a narrower type in registers before it moves them (f32 to
// f16, s32 to s8), so a narrower type than an atom's is planned with a note;
// a wider one than both sides' would move bytes no side holds.
std::string element_of(const ConversionInput& input, std::string& note) {
  const std::optional<std::string> from = atom_element(input.from), to = atom_element(input.to);
  if (input.element.empty()) return to ? *to : from ? *from : "f32";
  const int bytes = element_bytes(input.element);
  if (!from && !to) return input.element;
  std::string holds;
  if (from) holds += "FROM's operand holds " + *from;
  if (to) holds += std::string(holds.empty() ? "TO's operand holds " : " and TO's ") + *to;
  const int widest = std::max(from ? element_bytes(*from) : 0, to ? element_bytes(*to) : 0);
  if (bytes > widest)
    throw LegoError("--elem " + input.element + " (" + std::to_string(bytes) + " bytes): " + holds +
                    ", narrower; a conversion moves one of its sides' types, or a narrower one converted in registers (leave --elem "
                    "out to take " +
                    (to ? *to : *from) + ")");
  if (!(from && *from == input.element) && !(to && *to == input.element))
    note = holds + ": the plan moves " + input.element + ", converted in registers before or after it";
  return input.element;
}

}  // namespace

Conversion plan_checked(const ConversionInput& input) {
  Conversion c;
  c.element = element_of(input, c.element_note);
  const int bytes = element_bytes(c.element);
  const auto start = std::chrono::steady_clock::now();
  const int threads = 32 * input.warps;
  // The side that knows its threads is read first, the other sized by it: an atom, then a CuTe layout where
  // --tile gives its tile (else a LEGO layout's own shape gives the tile first).
  const bool tile_given = input.rows > 0 && input.cols > 0;
  const auto rank = [&](TvForm f) { return f == TvForm::Atom ? 0 : f == TvForm::Cute ? (tile_given ? 1 : 3) : 2; };
  if (rank(form_of(input.to)) < rank(form_of(input.from))) {
    c.to = read_tv(input.to, "TO", input.rows, input.cols, threads);
    c.from = read_tv(input.from, "FROM", c.to.tv.rows, c.to.tv.cols, c.to.tv.threads);
  } else {
    c.from = read_tv(input.from, "FROM", input.rows, input.cols, threads);
    c.to = read_tv(input.to, "TO", c.from.tv.rows, c.from.tv.cols, c.from.tv.threads);
  }
  if (input.warps_given)
    for (const auto& [side, name] : {std::pair{&c.from, "FROM"}, std::pair{&c.to, "TO"}})
      if (side->form != TvForm::Lego && side->tv.threads != threads)
        throw LegoError("--warps " + std::to_string(input.warps) + " gives " + std::to_string(threads) + " threads, but " + name + "'s " +
                        (side->form == TvForm::Atom ? "atom" : "CuTe layout") + " has " + std::to_string(side->tv.threads) +
                        " (an atom's and a CuTe layout's threads are their own: leave --warps out)");
  c.report = plan_conversion(c.from.tv, c.to.tv, {bytes, {}});
  for (const auto& p : c.report.plans)
    if (p.possible)
      if (const std::string wrong = check_plan(p, c.from.tv, c.to.tv); !wrong.empty())
        throw LegoError("the planner's " + p.name + " plan is wrong (a bug; please report it): " + wrong);
  c.planning_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return c;
}

std::string buffer_cute_text(const ConversionReport& r, const ConversionPlan& p) {
  const auto found = cute::from_table_maybe_swizzled({r.rows, r.cols}, p.offsets);
  return found ? cute::to_string(*found) : std::string("(none: not strides, nor strides under a CuTe swizzle)");
}

std::string side_text(const std::string& what, const SharedSide& s, int bytes) {
  return fmt::format("{}: {} instruction{} a thread of {} element{} ({} bytes); {} wavefronts a warp, {} excess, worst {}-way", what,
                     s.instructions, s.instructions == 1 ? "" : "s", s.vector_elements, s.vector_elements == 1 ? "" : "s",
                     s.vector_elements * bytes, s.wavefronts, s.excess_wavefronts, s.worst_ways);
}

namespace {

std::string round_text(const ShuffleRound& round) {
  std::string lanes;
  for (std::size_t l = 0; l < round.source_lane.size(); ++l)
    if (round.source_lane[l] >= 0)
      lanes += fmt::format(" {}.v{}<-{}.v{}", l, round.received_value[l], round.source_lane[l],
                           round.sent_value[static_cast<std::size_t>(round.source_lane[l])]);
  return lanes;
}

std::string registers_text(const ConversionPlan& p) {
  std::string moves;
  for (std::size_t v = 0; v < p.source_value.front().size(); ++v) moves += fmt::format(" v{}<-v{}", v, p.source_value.front()[v]);
  std::string out =
      fmt::format("  thread 0:{}{}\n", moves, same_in_every_thread(p) ? " (every thread the same)" : " (other threads differ)");
  if (p.cost.selects == 0)
    return out + fmt::format("  {} register move{} at most a thread: renames, free once registers are allocated\n", p.cost.register_moves,
                             p.cost.register_moves == 1 ? "" : "s");
  return out + fmt::format("  the lanes of a warp take different registers: {} selects a thread pick them by lane\n", p.cost.selects);
}

std::string shuffles_text(const ConversionPlan& p, std::size_t rounds_shown, const std::string& hint) {
  const auto& rounds = p.rounds.front();
  std::string out = fmt::format(
      "  warp 0: {} round{} of __shfl_sync; per round, lane.TO register <- the lane it reads.the FROM register that lane sends:\n",
      rounds.size(), rounds.size() == 1 ? "" : "s");
  // The values a lane keeps but holds in another register: TO's register <- FROM's, no shuffle.
  std::string local;
  int moves = 0;
  for (std::size_t t = 0; t < p.source_thread.size() && t < 32; ++t)
    for (std::size_t v = 0; v < p.source_thread[t].size(); ++v)
      if (p.source_thread[t][v] == static_cast<int>(t) && p.source_value[t][v] != static_cast<int>(v) && ++moves <= 8)
        local += fmt::format(" {}.v{}<-v{}", t, v, p.source_value[t][v]);
  if (p.packed > 1)
    out += fmt::format("  {} elements a 32-bit __shfl_sync: each {} rounds in turn share one shuffle of the sender's packed word\n",
                       p.packed, p.packed);
  if (moves > 0)
    out += fmt::format("  in-lane moves, lane.TO register <- FROM register ({}):{}{}\n", moves, local, moves > 8 ? " ..." : "");
  for (std::size_t k = 0; k < rounds.size() && k < rounds_shown; ++k) out += fmt::format("  round {}:{}\n", k + 1, round_text(rounds[k]));
  if (rounds.size() > rounds_shown) out += fmt::format("  ... {} more rounds{}\n", rounds.size() - rounds_shown, hint);
  if (p.rounds.size() > 1) {
    const bool alike = std::all_of(p.rounds.begin(), p.rounds.end(), [&](const auto& w) {
      return w.size() == rounds.size() && std::equal(w.begin(), w.end(), rounds.begin(), [](const ShuffleRound& a, const ShuffleRound& b) {
               return a.source_lane == b.source_lane && a.sent_value == b.sent_value && a.received_value == b.received_value;
             });
    });
    out += alike ? fmt::format("  the other {} warps do the same on their own lanes\n", p.rounds.size() - 1)
                 : std::string("  the other warps' rounds differ (--json lists every warp's)\n");
  }
  return out;
}

}  // namespace

std::string movement_text(const ConversionReport& r, const ConversionPlan& p, std::size_t rounds_shown,
                          const std::string& more_rounds_hint) {
  if (!p.possible) return "  not possible: " + p.why_not + "\n";
  switch (p.kind) {
    case PlanKind::Registers:
      return registers_text(p);
    case PlanKind::Shuffles:
      return shuffles_text(p, rounds_shown, more_rounds_hint);
    case PlanKind::Shared:
      break;
  }
  return "  buffer (LEGO): " + print(p.buffer.layout) + "\n  buffer (CuTe): " + buffer_cute_text(r, p) + "\n  " +
         side_text("store FROM", p.store, r.element_bytes) + "\n  " + side_text("load TO", p.load, r.element_bytes) + "\n" +
         fmt::format("  {} shared bytes, one barrier between the stores and the loads\n", p.cost.shared_bytes);
}

namespace {

// Marks TO's (thread, value) as arrived; counts what it newly marks.
struct Arrivals {
  const atom::TvLayout& to;
  std::vector<char> arrived;
  int mark(int thread, int value) {
    char& a = arrived[to.element(thread, value)];
    const int fresh = a ? 0 : 1;
    a = 1;
    return fresh;
  }
  void all() { std::fill(arrived.begin(), arrived.end(), 1); }  // every element TO gives a thread covers the tile once
};

std::string plural(int n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

void shuffle_steps(const ConversionPlan& p, Arrivals& a, std::vector<ConversionStep>& steps) {
  int local = 0;
  for (int t = 0; t < a.to.threads; ++t)
    for (int v = 0; v < a.to.values; ++v)
      if (p.source_thread[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] == t) local += a.mark(t, v);
  if (local > 0)
    steps.push_back(
        {"local moves", plural(local, "value changes its register", "values change their registers") + " within a thread", a.arrived});
  std::size_t most = 0;
  for (const auto& w : p.rounds) most = std::max(most, w.size());
  for (std::size_t k = 0; k < most; ++k) {
    int moved = 0;
    for (std::size_t w = 0; w < p.rounds.size(); ++w) {
      if (k >= p.rounds[w].size()) continue;
      const ShuffleRound& r = p.rounds[w][k];
      for (std::size_t l = 0; l < r.received_value.size(); ++l)
        if (r.received_value[l] >= 0) moved += a.mark(static_cast<int>(w * 32 + l), r.received_value[l]);
    }
    const std::string lanes = p.rounds.front().size() > k ? "; warp 0:" + round_text(p.rounds.front()[k]) : std::string();
    steps.push_back({fmt::format("round {} of {}", k + 1, most),
                     fmt::format("__shfl_sync: {} received{}", plural(moved, "value", "values"), lanes), a.arrived});
  }
}

}  // namespace

std::vector<ConversionStep> conversion_steps(const ConversionReport& r, const ConversionPlan& p, const atom::TvLayout& from,
                                             const atom::TvLayout& to) {
  Arrivals a{to, std::vector<char>(static_cast<std::size_t>(to.rows) * static_cast<std::size_t>(to.cols), 0)};
  std::vector<ConversionStep> steps;
  if (!p.possible) return steps;
  // Before any movement: what FROM already puts where TO wants it.
  int in_place = 0;
  if (p.kind != PlanKind::Shared)
    for (int t = 0; t < to.threads; ++t)
      for (int v = 0; v < to.values; ++v)
        if (p.source_thread[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] == t &&
            p.source_value[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] == v)
          in_place += a.mark(t, v);
  steps.push_back({"FROM",
                   fmt::format("{} threads hold {} values each; {} already in the thread and register TO gives them", from.threads,
                               from.values, plural(in_place, "element is", "elements are")),
                   a.arrived});
  switch (p.kind) {
    case PlanKind::Registers:
      a.all();
      steps.push_back({"register moves", registers_text(p).substr(2), a.arrived});
      break;
    case PlanKind::Shuffles:
      shuffle_steps(p, a, steps);
      break;
    case PlanKind::Shared:
      steps.push_back({"store", side_text("FROM stored into the buffer", p.store, r.element_bytes), a.arrived});
      a.all();
      steps.push_back({"barrier, load", side_text("__syncthreads(), then TO loaded from the buffer", p.load, r.element_bytes), a.arrived});
      break;
  }
  return steps;
}

}  // namespace lego::convert
