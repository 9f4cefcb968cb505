#include "convert/planner.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "analysis/banks.hpp"
#include "convert/xor_buffer.hpp"
#include "expr/diagnostic.hpp"

namespace lego::convert {

const char* to_string(PlanKind kind) {
  switch (kind) {
    case PlanKind::Registers:
      return "registers";
    case PlanKind::Shuffles:
      return "shuffles";
    case PlanKind::Shared:
      return "shared";
  }
  return "shared";
}

namespace {

using analysis::kWarp;  // lanes of a warp, as the bank analysis counts them
constexpr int kMaxValues = 256;
constexpr int kMaxThreads = 1024;
constexpr std::int64_t kMaxStaticShared = 48 * 1024;  // __shared__ arrays; more needs dynamic shared memory

struct Holder {
  int thread = -1, value = -1;
};

std::string where(const atom::Coord& c) { return "(" + std::to_string(c.row) + ", " + std::to_string(c.col) + ")"; }

// For each (thread, value) of TO, the (thread, value) of FROM that holds the same element.
std::vector<std::vector<Holder>> sources(const atom::TvLayout& from, const atom::TvLayout& to) {
  std::vector<Holder> holder(static_cast<std::size_t>(from.rows * from.cols));
  for (int t = 0; t < from.threads; ++t)
    for (int v = 0; v < from.values; ++v) holder[from.element(t, v)] = {t, v};
  std::vector<std::vector<Holder>> out(static_cast<std::size_t>(to.threads), std::vector<Holder>(static_cast<std::size_t>(to.values)));
  for (int t = 0; t < to.threads; ++t)
    for (int v = 0; v < to.values; ++v) out[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] = holder[to.element(t, v)];
  return out;
}

// A registers or shuffles plan: where each TO value comes from, as the plan lists it.
ConversionPlan plan_from_sources(PlanKind kind, const std::vector<std::vector<Holder>>& src) {
  ConversionPlan p;
  p.kind = kind;
  p.name = to_string(kind);
  for (const auto& thread : src) {
    p.source_value.emplace_back();
    p.source_thread.emplace_back();
    for (const Holder& h : thread) {
      p.source_value.back().push_back(h.value);
      p.source_thread.back().push_back(h.thread);
    }
  }
  return p;
}

// Selects for the values warp w's lanes keep (every value, in a registers
// plan; those no other lane sends, in a shuffles plan): a destination
// register whose source register differs between those lanes is picked by
// lane at run time, a select chain over the thread's registers, not a rename.
int in_lane_selects(const atom::TvLayout& to, const std::vector<std::vector<Holder>>& src, int w) {
  const int lanes = std::min(kWarp, to.threads - w * kWarp);
  int selects = 0;
  for (int v = 0; v < to.values; ++v) {
    int source = -1;
    for (int l = 0; l < lanes; ++l) {
      const Holder h = src[static_cast<std::size_t>(w * kWarp + l)][static_cast<std::size_t>(v)];
      if (h.thread != w * kWarp + l) continue;
      if (source < 0) source = h.value;
      if (h.value != source) {
        selects += to.values - 1;
        break;
      }
    }
  }
  return selects;
}

ConversionPlan registers_plan(const atom::TvLayout& to, const std::vector<std::vector<Holder>>& src) {
  ConversionPlan p = plan_from_sources(PlanKind::Registers, src);
  for (int t = 0; t < to.threads; ++t) {
    int moves = 0;
    for (int v = 0; v < to.values; ++v) {
      const Holder h = src[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)];
      if (h.thread != t && p.possible) {
        p.possible = false;
        p.why_not =
            "thread " + std::to_string(t) + " needs " + where(to.at(t, v)) + ", which thread " + std::to_string(h.thread) + " holds";
      }
      moves += h.value != v;
    }
    p.cost.register_moves = std::max(p.cost.register_moves, moves);
  }
  if (p.possible)
    for (int w = 0; w * kWarp < to.threads; ++w) p.cost.selects = std::max(p.cost.selects, in_lane_selects(to, src, w));
  return p;
}

// needs[lane]: (sending lane, its value, the receiver's value) for every
// value a lane takes from another lane of its warp.
using Needs = std::vector<std::vector<std::array<int, 3>>>;

ShuffleRound empty_round() { return {std::vector<int>(kWarp, -1), std::vector<int>(kWarp, -1), std::vector<int>(kWarp, -1)}; }

// Greedy rounds: each round, receivers with the most left to receive
// choose first, each taking a value whose sender is idle or already sends
// that very register (one send may serve several lanes).
std::vector<ShuffleRound> greedy_rounds(Needs needs, int lanes) {
  std::vector<ShuffleRound> rounds;
  while (std::any_of(needs.begin(), needs.end(), [](const auto& n) { return !n.empty(); })) {
    ShuffleRound r = empty_round();
    std::vector<int> order(static_cast<std::size_t>(lanes));
    for (int l = 0; l < lanes; ++l) order[static_cast<std::size_t>(l)] = l;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return needs[a].size() > needs[b].size(); });
    for (const int l : order) {
      auto& n = needs[static_cast<std::size_t>(l)];
      for (std::size_t k = 0; k < n.size(); ++k) {
        const auto [sender, value, into] = n[k];
        int& sent = r.sent_value[static_cast<std::size_t>(sender)];
        if (sent != -1 && sent != value) continue;
        sent = value;
        r.source_lane[static_cast<std::size_t>(l)] = sender;
        r.received_value[static_cast<std::size_t>(l)] = into;
        n.erase(n.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
    }
    rounds.push_back(std::move(r));
  }
  return rounds;
}

// Rounds from a proper edge colouring of the bipartite multigraph senders x
// receivers (an edge per value moved): a colour is a round in which each
// lane sends one value and receives one. Kőnig's theorem gives as many
// rounds as the busiest lane's sends or receives, the least any schedule of
// one value per lane per round can do; each edge is coloured by flipping an
// alternating path of two colours when its ends have no free colour in common.
std::vector<ShuffleRound> coloured_rounds(const Needs& needs, int lanes) {
  struct Edge {
    int sender, receiver, value, into;
  };
  std::vector<Edge> edges;
  std::vector<int> sends(kWarp, 0), receives(kWarp, 0);
  for (int l = 0; l < lanes; ++l)
    for (const auto& [sender, value, into] : needs[static_cast<std::size_t>(l)]) {
      edges.push_back({sender, l, value, into});
      ++sends[static_cast<std::size_t>(sender)];
      ++receives[static_cast<std::size_t>(l)];
    }
  const int colours = std::max(*std::max_element(sends.begin(), sends.end()), *std::max_element(receives.begin(), receives.end()));
  if (colours == 0) return {};
  // at[side][lane][colour]: the edge of that colour at the lane (-1: free); side 0 senders, 1 receivers.
  std::vector<std::vector<std::vector<int>>> at(
      2, std::vector<std::vector<int>>(kWarp, std::vector<int>(static_cast<std::size_t>(colours), -1)));
  std::vector<int> colour(edges.size(), -1);
  const auto free_colour = [&](int side, int lane) {
    const auto& c = at[static_cast<std::size_t>(side)][static_cast<std::size_t>(lane)];
    return static_cast<int>(std::find(c.begin(), c.end(), -1) - c.begin());
  };
  const auto end_of = [&](const Edge& e, int side) { return side == 0 ? e.sender : e.receiver; };
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const Edge& e = edges[k];
    const int a = free_colour(0, e.sender), b = free_colour(1, e.receiver);
    if (a != b && at[0][static_cast<std::size_t>(e.sender)][static_cast<std::size_t>(b)] != -1) {
      // b is taken at the sender: swap a and b along the path from the sender that alternates b, a, b, ...
      std::vector<int> path;
      int side = 0, lane = e.sender, want = b;
      for (int edge; (edge = at[static_cast<std::size_t>(side)][static_cast<std::size_t>(lane)][static_cast<std::size_t>(want)]) != -1;) {
        path.push_back(edge);
        side = 1 - side;
        lane = end_of(edges[static_cast<std::size_t>(edge)], side);
        want = want == b ? a : b;
      }
      for (const int edge : path)
        for (int sd = 0; sd < 2; ++sd)
          at[static_cast<std::size_t>(sd)][static_cast<std::size_t>(end_of(edges[static_cast<std::size_t>(edge)], sd))]
            [static_cast<std::size_t>(colour[static_cast<std::size_t>(edge)])] = -1;
      for (const int edge : path) {
        colour[static_cast<std::size_t>(edge)] = colour[static_cast<std::size_t>(edge)] == b ? a : b;
        for (int sd = 0; sd < 2; ++sd)
          at[static_cast<std::size_t>(sd)][static_cast<std::size_t>(end_of(edges[static_cast<std::size_t>(edge)], sd))]
            [static_cast<std::size_t>(colour[static_cast<std::size_t>(edge)])] = edge;
      }
    }
    colour[k] = b;  // now free at both ends
    at[0][static_cast<std::size_t>(e.sender)][static_cast<std::size_t>(b)] = static_cast<int>(k);
    at[1][static_cast<std::size_t>(e.receiver)][static_cast<std::size_t>(b)] = static_cast<int>(k);
  }
  std::vector<ShuffleRound> rounds(static_cast<std::size_t>(colours), empty_round());
  for (std::size_t k = 0; k < edges.size(); ++k) {
    ShuffleRound& r = rounds[static_cast<std::size_t>(colour[k])];
    r.sent_value[static_cast<std::size_t>(edges[k].sender)] = edges[k].value;
    r.source_lane[static_cast<std::size_t>(edges[k].receiver)] = edges[k].sender;
    r.received_value[static_cast<std::size_t>(edges[k].receiver)] = edges[k].into;
  }
  return rounds;
}

ConversionPlan shuffles_plan(const atom::TvLayout& to, const std::vector<std::vector<Holder>>& src, int from_values, int element_bytes) {
  ConversionPlan p = plan_from_sources(PlanKind::Shuffles, src);
  for (int t = 0; t < to.threads; ++t)
    for (int v = 0; v < to.values; ++v) {
      const Holder h = src[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)];
      if (h.thread / kWarp != t / kWarp && p.possible) {
        p.possible = false;
        p.why_not = "thread " + std::to_string(t) + " (warp " + std::to_string(t / kWarp) + ") needs " + where(to.at(t, v)) +
                    ", which thread " + std::to_string(h.thread) + " of warp " + std::to_string(h.thread / kWarp) + " holds";
      }
    }
  if (!p.possible) return p;
  const int warps = (to.threads + kWarp - 1) / kWarp;
  // Elements narrower than 4 bytes can travel k to a 32-bit shuffle: the
  // sender's FROM registers k w .. k w + k - 1 as one word, which the
  // receiver unpacks into whichever of its registers need them.
  const int k = element_bytes < 4 && from_values % (4 / element_bytes) == 0 ? 4 / element_bytes : 1;
  Cost single, packed;
  std::vector<std::vector<ShuffleRound>> single_rounds, packed_rounds;
  for (int w = 0; w < warps; ++w) {
    const int lanes = std::min(kWarp, to.threads - w * kWarp);
    // The values lanes keep move in-lane before the rounds, and pay selects as a registers plan's do.
    const int kept_selects = in_lane_selects(to, src, w);
    for (const int per_word : k > 1 ? std::vector<int>{1, k} : std::vector<int>{1}) {
      // needs at the granularity of a word: (sender, its word, the receiver's group of that word).
      Needs needs(static_cast<std::size_t>(lanes));
      std::vector<std::vector<std::vector<int>>> groups(static_cast<std::size_t>(lanes));  // [lane][group][element] = TO register
      for (int l = 0; l < lanes; ++l)
        for (int v = 0; v < to.values; ++v) {
          const Holder h = src[static_cast<std::size_t>(w * kWarp + l)][static_cast<std::size_t>(v)];
          if (h.thread == w * kWarp + l) continue;
          auto& n = needs[static_cast<std::size_t>(l)];
          const int sender = h.thread - w * kWarp, word = h.value / per_word;
          const auto found = std::find_if(n.begin(), n.end(), [&](const auto& e) { return e[0] == sender && e[1] == word; });
          int group = found == n.end() ? -1 : (*found)[2];
          if (group < 0) {
            group = static_cast<int>(groups[static_cast<std::size_t>(l)].size());
            groups[static_cast<std::size_t>(l)].push_back(std::vector<int>(static_cast<std::size_t>(per_word), -1));
            n.push_back({sender, word, group});
          }
          groups[static_cast<std::size_t>(l)][static_cast<std::size_t>(group)][static_cast<std::size_t>(h.value % per_word)] = v;
        }
      // Each word round as per_word element rounds that share its shuffle, and what they cost.
      const auto expand = [&](const std::vector<ShuffleRound>& words) {
        std::vector<ShuffleRound> rounds;
        for (const ShuffleRound& r : words)
          for (int e = 0; e < per_word; ++e) {
            ShuffleRound x = empty_round();
            for (int l = 0; l < lanes; ++l) {
              if (r.sent_value[static_cast<std::size_t>(l)] >= 0)
                x.sent_value[static_cast<std::size_t>(l)] = r.sent_value[static_cast<std::size_t>(l)] * per_word + e;
              const int group = r.received_value[static_cast<std::size_t>(l)];
              if (group < 0) continue;
              x.source_lane[static_cast<std::size_t>(l)] = r.source_lane[static_cast<std::size_t>(l)];
              x.received_value[static_cast<std::size_t>(l)] =
                  groups[static_cast<std::size_t>(l)][static_cast<std::size_t>(group)][static_cast<std::size_t>(e)];
            }
            rounds.push_back(std::move(x));
          }
        Cost cost;
        cost.selects = kept_selects;
        for (std::size_t n = 0; n < rounds.size(); ++n) {
          const ShuffleRound& r = rounds[n];
          // A register chosen by lane: a select chain over the registers (the word's, once a word).
          std::set<int> sent, received;
          for (int l = 0; l < lanes; ++l) {
            if (r.source_lane[static_cast<std::size_t>(l)] >= 0)
              sent.insert(r.sent_value[static_cast<std::size_t>(r.source_lane[static_cast<std::size_t>(l)])]);
            if (r.received_value[static_cast<std::size_t>(l)] >= 0) received.insert(r.received_value[static_cast<std::size_t>(l)]);
          }
          const bool first = n % static_cast<std::size_t>(per_word) == 0;
          if (first && sent.size() > 1) cost.selects += from_values / per_word - 1;
          if (received.size() > 1) cost.selects += to.values - 1;
          if (first) cost.shuffles += element_bytes > 4 ? element_bytes / 4 : 1;  // 32-bit shuffles per element (or word)
        }
        return std::pair{std::move(rounds), cost};
      };
      // The two schedules, by what they cost (selects included), not by their rounds alone.
      auto [rounds, cost] = expand(greedy_rounds(needs, lanes));
      if (auto coloured = expand(coloured_rounds(needs, lanes)); coloured.second.score() < cost.score()) {
        rounds = std::move(coloured.first);
        cost = coloured.second;
      }
      Cost& c = per_word == 1 ? single : packed;
      c.shuffles = std::max(c.shuffles, cost.shuffles);
      c.selects = std::max(c.selects, cost.selects);
      (per_word == 1 ? single_rounds : packed_rounds).push_back(std::move(rounds));
    }
  }
  const bool pack = k > 1 && packed.score() < single.score();
  p.packed = pack ? k : 1;
  p.cost.shuffles = pack ? packed.shuffles : single.shuffles;
  p.cost.selects = pack ? packed.selects : single.selects;
  p.rounds = pack ? std::move(packed_rounds) : std::move(single_rounds);
  return p;
}

// The widest access of `k` elements (k * bytes <= 16) every thread can make
// for every group of k consecutive values: consecutive, aligned positions.
int vector_elements(const atom::TvLayout& tv, const std::vector<std::int64_t>& offsets, int bytes) {
  // Powers of two only: an access moves 4, 8 or 16 bytes (or one narrower element).
  for (int k = 16 / bytes; k > 1; k /= 2) {
    if (k > tv.values || tv.values % k != 0) continue;
    bool ok = true;
    for (int t = 0; t < tv.threads && ok; ++t)
      for (int g = 0; g < tv.values / k && ok; ++g) {
        const std::int64_t o = offsets[tv.element(t, g * k)];
        ok = o % k == 0;
        for (int e = 1; e < k && ok; ++e) ok = offsets[tv.element(t, g * k + e)] == o + e;
      }
    if (ok) return k;
  }
  return 1;
}

SharedSide analyse_side(const atom::TvLayout& tv, const std::vector<std::int64_t>& offsets, int bytes) {
  SharedSide s;
  s.vector_elements = vector_elements(tv, offsets, bytes);
  s.instructions = tv.values / s.vector_elements;
  const int access = std::max(4, s.vector_elements * bytes);  // narrower accesses take their 4-byte word's bank
  const int warps = (tv.threads + kWarp - 1) / kWarp;
  for (int w = 0; w < warps; ++w) {
    std::int64_t wavefronts = 0, excess = 0;
    for (int j = 0; j < s.instructions; ++j) {
      analysis::WarpAccess a;
      a.bytes = access;
      for (int l = 0; l < kWarp && w * kWarp + l < tv.threads; ++l) {
        const std::int64_t byte = offsets[tv.element(w * kWarp + l, j * s.vector_elements)] * bytes;
        a.address[static_cast<std::size_t>(l)] = byte / access * access;
        a.active[static_cast<std::size_t>(l)] = true;
      }
      const analysis::ConflictReport r = analysis::analyze(a);
      wavefronts += r.wavefronts;
      excess += r.excess();
      if (r.ways > s.worst_ways) {
        s.worst_lane_bank = {};
        analysis::add_lane_bank(s.worst_lane_bank, r);
      }
      s.worst_ways = std::max(s.worst_ways, r.ways);
    }
    s.wavefronts = std::max(s.wavefronts, wavefronts);
    s.excess_wavefronts = std::max(s.excess_wavefronts, excess);
  }
  return s;
}

std::optional<ConversionPlan> shared_plan(const atom::TvLayout& from, const atom::TvLayout& to, const CandidateLayout& buffer, int bytes) {
  std::optional<Placement> placed;
  try {
    placed = place_buffer(buffer.layout, {}, from.rows, from.cols);
  } catch (const LegoError&) {
    return std::nullopt;  // a candidate that does not fit this tile (a swizzle's block larger than it)
  }
  if (!placed) return std::nullopt;
  ConversionPlan p;
  p.kind = PlanKind::Shared;
  p.name = "shared, " + buffer.name;
  p.buffer = buffer;
  p.offsets = placed->offsets;
  try {
    p.store = analyse_side(from, p.offsets, bytes);
    p.load = analyse_side(to, p.offsets, bytes);
  } catch (const LegoError&) {
    return std::nullopt;  // an access the bank analysis cannot model: this buffer is not scored, the others are
  }
  p.cost.shared_instructions = p.store.instructions + p.load.instructions;
  p.cost.wavefronts = p.store.wavefronts + p.load.wavefronts;
  p.cost.excess_wavefronts = p.store.excess_wavefronts + p.load.excess_wavefronts;
  p.cost.shared_bytes = (static_cast<std::int64_t>(from.rows) * from.cols + placed->extra_elements) * bytes;
  p.cost.syncs = 1;  // between the stores and the loads (the emitted code adds one after the loads, for reuse)
  if (p.cost.shared_bytes > kMaxStaticShared) {
    p.possible = false;
    p.why_not = "its buffer takes " + std::to_string(p.cost.shared_bytes) + " bytes of shared memory; a block's static shared memory is " +
                std::to_string(kMaxStaticShared) + " bytes";
  }
  return p;
}

std::string slots(double score) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", score);
  return text;
}

std::string cost_text(const Cost& c) {
  std::string s;
  if (c.shuffles) s += std::to_string(c.shuffles) + " shuffles, ";
  if (c.selects) s += std::to_string(c.selects) + " selects, ";
  if (c.shared_instructions)
    s += std::to_string(c.shared_instructions) + " shared instructions, " + std::to_string(c.excess_wavefronts) + " excess wavefronts, ";
  if (c.syncs) s += std::to_string(c.syncs) + " barrier, ";
  return s.empty() ? "nothing" : s.substr(0, s.size() - 2);
}

}  // namespace

ConversionReport plan_conversion(const atom::TvLayout& from, const atom::TvLayout& to, const ConversionOptions& options) {
  if (from.rows != to.rows || from.cols != to.cols)
    throw LegoError("FROM's tile is " + std::to_string(from.rows) + " x " + std::to_string(from.cols) + " and TO's " +
                    std::to_string(to.rows) + " x " + std::to_string(to.cols) + ": a conversion keeps the tile");
  if (from.threads != to.threads)
    throw LegoError("FROM has " + std::to_string(from.threads) + " threads and TO " + std::to_string(to.threads) +
                    ": a conversion redistributes the data of the same threads (a LEGO layout takes its threads from --warps, 32 each, "
                    "or from the other side)");
  const int bytes = options.element_bytes;
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    throw LegoError("elements of " + std::to_string(bytes) + " bytes: 1, 2, 4 or 8 (--elem f16, f32, ...)");
  if (!from.covers_tile_once() || !to.covers_tile_once()) throw LegoError("a conversion needs layouts that hold every element once");
  // What one CTA's registers can hold: the planner's rounds and buffer
  // analyses are sized for that, not for a whole matrix.
  if (static_cast<std::int64_t>(from.rows) * from.cols > kMaxConversionElements)
    throw LegoError("a " + std::to_string(from.rows) + " x " + std::to_string(from.cols) +
                    " tile is more than a CTA holds in registers; plan tiles of at most " + std::to_string(kMaxConversionElements) +
                    " elements");
  if (from.values > kMaxValues || to.values > kMaxValues)
    throw LegoError(std::to_string(std::max(from.values, to.values)) + " values a thread, more than the " + std::to_string(kMaxValues) +
                    " a thread's 255 registers can hold; use more warps (--warps)");
  if (from.threads > kMaxThreads)
    throw LegoError(std::to_string(from.threads) + " threads: a block has at most " + std::to_string(kMaxThreads));
  ConversionReport report{from.rows, from.cols, from.threads, to.values, bytes, {}};
  const auto src = sources(from, to);
  ConversionPlan regs = registers_plan(to, src);
  const bool registers_do = regs.possible;
  report.plans.push_back(std::move(regs));
  if (!registers_do) report.plans.push_back(shuffles_plan(to, src, from.values, bytes));
  std::vector<CandidateLayout> buffers = buffer_candidates(from.rows, from.cols, bytes);
  for (auto& built : xor_buffers(from, to, bytes)) buffers.push_back(std::move(built));
  for (const auto& c : options.project_layouts) buffers.push_back(c);
  std::vector<ConversionPlan> shared;
  for (const auto& b : buffers)
    if (auto p = shared_plan(from, to, b, bytes)) shared.push_back(std::move(*p));
  // Ties: less shared memory, then no barrier (shuffles over a shared round trip), then the order listed.
  const auto cheaper = [](const ConversionPlan& a, const ConversionPlan& b) {
    if (a.possible != b.possible) return a.possible;
    if (a.cost.score() != b.cost.score()) return a.cost.score() < b.cost.score();
    if (a.cost.shared_bytes != b.cost.shared_bytes) return a.cost.shared_bytes < b.cost.shared_bytes;
    return a.cost.syncs < b.cost.syncs;
  };
  std::stable_sort(shared.begin(), shared.end(), cheaper);
  // The best buffer, and the plain row-major one for comparison when it is not the best.
  if (!shared.empty()) {
    report.plans.push_back(shared.front());
    const auto row = std::find_if(shared.begin() + 1, shared.end(), [](const ConversionPlan& p) { return p.buffer.family == "row"; });
    if (row != shared.end()) report.plans.push_back(*row);
  }
  std::stable_sort(report.plans.begin(), report.plans.end(), cheaper);
  if (!report.plans.front().possible) {
    std::string why;
    for (const auto& p : report.plans) why += "\n  " + p.name + ": " + p.why_not;
    throw LegoError("no plan fits this conversion:" + why);
  }
  const ConversionPlan& chosen = report.plans.front();
  for (std::size_t k = 0; k < report.plans.size(); ++k) {
    ConversionPlan& p = report.plans[k];
    if (!p.possible)
      p.reason = "not possible: " + p.why_not;
    else if (k == 0)
      p.reason = "chosen: " + cost_text(p.cost) + " (" + slots(p.cost.score()) + " issue slots a warp)";
    else
      p.reason = "costs " + slots(p.cost.score() - chosen.cost.score()) + " issue slots more: " + cost_text(p.cost);
  }
  return report;
}

bool same_in_every_thread(const ConversionPlan& plan) {
  return std::all_of(plan.source_value.begin(), plan.source_value.end(),
                     [&](const std::vector<int>& thread) { return thread == plan.source_value.front(); });
}

std::string check_plan(const ConversionPlan& plan, const atom::TvLayout& from, const atom::TvLayout& to) {
  std::vector<std::vector<std::int64_t>> reg(static_cast<std::size_t>(from.threads));
  for (int t = 0; t < from.threads; ++t)
    for (int v = 0; v < from.values; ++v) reg[static_cast<std::size_t>(t)].push_back(static_cast<std::int64_t>(from.element(t, v)));
  std::vector<std::vector<std::int64_t>> dst(static_cast<std::size_t>(to.threads),
                                             std::vector<std::int64_t>(static_cast<std::size_t>(to.values), -1));
  switch (plan.kind) {
    case PlanKind::Registers:  // every value is local: the shuffles' first loop, and no rounds
    case PlanKind::Shuffles:
      for (int t = 0; t < to.threads; ++t)
        for (int v = 0; v < to.values; ++v)
          if (plan.source_thread[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] == t)
            dst[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] =
                reg[static_cast<std::size_t>(t)]
                   [static_cast<std::size_t>(plan.source_value[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)])];
      for (std::size_t w = 0; w < plan.rounds.size(); ++w)
        for (const ShuffleRound& r : plan.rounds[w])
          for (int l = 0; l < kWarp; ++l) {
            const int into = r.received_value[static_cast<std::size_t>(l)];
            if (into < 0) continue;
            const int sender = static_cast<int>(w) * kWarp + r.source_lane[static_cast<std::size_t>(l)];
            const int sent = r.sent_value[static_cast<std::size_t>(r.source_lane[static_cast<std::size_t>(l)])];
            dst[w * kWarp + static_cast<std::size_t>(l)][static_cast<std::size_t>(into)] =
                reg[static_cast<std::size_t>(sender)][static_cast<std::size_t>(sent)];
          }
      break;
    case PlanKind::Shared: {
      std::map<std::int64_t, std::int64_t> buffer;
      for (int t = 0; t < from.threads; ++t)
        for (int v = 0; v < from.values; ++v) {
          const std::int64_t at = plan.offsets[from.element(t, v)];
          if (buffer.count(at)) return "two elements stored at buffer position " + std::to_string(at);
          buffer[at] = reg[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)];
        }
      for (int t = 0; t < to.threads; ++t)
        for (int v = 0; v < to.values; ++v) {
          const auto it = buffer.find(plan.offsets[to.element(t, v)]);
          dst[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] = it == buffer.end() ? -1 : it->second;
        }
      break;
    }
  }
  for (int t = 0; t < to.threads; ++t)
    for (int v = 0; v < to.values; ++v)
      if (dst[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] != static_cast<std::int64_t>(to.element(t, v)))
        return "thread " + std::to_string(t) + " value " + std::to_string(v) + " ends with element " +
               std::to_string(dst[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)]) + ", not " + where(to.at(t, v));
  return "";
}

}  // namespace lego::convert
