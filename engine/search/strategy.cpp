#include "search/strategy.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>

#include "expr/diagnostic.hpp"
#include "search/model.hpp"
#include "search/transfer.hpp"

namespace lego::search {

std::optional<Strategy> strategy_named(const std::string& name) {
  if (name == "exhaustive") return Strategy::Exhaustive;
  if (name == "random") return Strategy::Random;
  if (name == "model") return Strategy::Model;
  if (name == "evolve") return Strategy::Evolve;
  return std::nullopt;
}

std::string name_of(Strategy s) {
  switch (s) {
    case Strategy::Exhaustive:
      return "exhaustive";
    case Strategy::Random:
      return "random";
    case Strategy::Model:
      return "model";
    case Strategy::Evolve:
      return "evolve";
  }
  return "model";
}

Budget parse_budget(const std::string& text) {
  Budget b;
  // A time ends in its unit: s, m (minutes) or h; a bare number counts evaluations.
  const char unit = text.empty() ? '\0' : text.back();
  const double unit_seconds = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 0;
  const bool seconds = unit_seconds > 0;
  const std::string number = seconds ? text.substr(0, text.size() - 1) : text;
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string why = used == 0 || used != number.size() ? "not a number with a unit s, m or h, or none"
                          : !(value > 0)                     ? "a budget must be above 0"
                          : value > 1e9                      ? "too large"
                          : !seconds && value != std::floor(value)
                              ? "evaluations are whole (a time takes its unit: " + number + "m is minutes)"
                              : "";
  if (!why.empty())
    throw LegoError("--budget " + text + ": " + why +
                    "; give a number of evaluations (e.g. 40) or a time in seconds, minutes or hours (90s, 5m, 1.5h)");
  if (seconds)
    b.seconds = value * unit_seconds;
  else
    b.evaluations = static_cast<std::size_t>(value);
  return b;
}

namespace {

struct Scored {
  double log_ms;
  std::uint64_t index;
  kernel::Variant variant;
};

class Search {
 public:
  Search(const kernel::LazySpace& space, const Features& features, const SearchOptions& options, const MeasureBatch& measure, Clock clock)
      : space_(space), features_(features), options_(options), measure_(measure), clock_(std::move(clock)), rng_(options.seed) {
    // A small space is walked once: the first admitted variant of each code
    // class stands for the class, so no strategy measures the same code twice.
    if (space_.candidates() <= kPoolSize) {
      std::set<std::uint64_t> classes;
      for (std::uint64_t i = 0; i < space_.candidates(); ++i)
        if (space_.admitted(i) && classes.insert(space_.code_class(i)).second) small_space_.push_back(i);
    }
    const std::size_t evals = options_.budget.evaluations;
    batch_ = options_.batch ? options_.batch : evals ? std::clamp<std::size_t>(evals / 10, 2, 8) : 4;
    // A first round of 8 (a fifth of a small budget), drawn among the
    // variants the prior cannot tell apart (by_prior): the first fit's only
    // view of how they differ. The two go together: replays of matmul_space
    // (first timings, 100 seeds, evaluations to within 5 %) took 12.3 with a
    // round of 4 of the prior's best alone, 12.8 with 8 of them, 12.0 with 4
    // drawn among the near ties and 10.0 with 8 (transpose_space, 20 seeds:
    // 125 before, 63.5).
    first_ = evals ? std::clamp<std::size_t>(evals / 5, 3, 8) : 8;
    // A small space's rounds are a tenth (the first) and a twentieth of it:
    // a round of 4 is already a quarter of a 16-variant space.
    const bool by_model = options_.strategy == Strategy::Model || options_.strategy == Strategy::Evolve;
    // Fitted once: a correction of the prior, under the one the search's own timings fit.
    if (by_model) correction_ = correction_of(options_.transfer);
    if (correction_.fitted()) report_.transferred = options_.transfer->rows.size();
    if (by_model && !small_space_.empty()) {
      first_ = std::min(first_, std::max<std::size_t>(1, small_space_.size() / 10));
      if (!options_.batch) batch_ = std::min(batch_, std::max<std::size_t>(1, small_space_.size() / 20));
    }
  }

  SearchReport run() {
    report_.strategy = options_.strategy;
    report_.candidates = space_.candidates();
    bool first_round = true;
    while (!out_of_budget()) {
      std::vector<Scored> picks;
      switch (options_.strategy) {
        case Strategy::Exhaustive:
          picks = in_order(room(batch_));
          break;
        case Strategy::Random:
          picks = at_random(room(batch_));
          break;
        case Strategy::Model:
        case Strategy::Evolve:
          // Until three timings can fit a model, the prior's best where it
          // ranks (or other kernels' timings correct it), else at random.
          if (first_round || successes() < 3)
            picks = features_.prior_ranks() || correction_.fitted() ? by_prior(room(first_round ? first_ : batch_))
                                                                    : at_random(room(first_round ? first_ : batch_));
          else
            picks = guided(room(batch_));
          break;
      }
      first_round = false;
      if (picks.empty()) {
        report_.exhausted = true;
        break;
      }
      if (!measure_batch(picks)) break;
    }
    finish();
    return report_;
  }

 private:
  double now() const { return clock_ ? clock_() : 0.0; }

  bool out_of_budget() const {
    const Budget& b = options_.budget;
    if (b.evaluations && report_.history.size() >= b.evaluations) return true;
    return b.seconds > 0 && now() >= b.seconds;
  }

  std::size_t room(std::size_t wanted) const {
    const Budget& b = options_.budget;
    return b.evaluations ? std::min(wanted, b.evaluations - report_.history.size()) : wanted;
  }

  std::size_t successes() const {
    return static_cast<std::size_t>(
        std::count_if(report_.history.begin(), report_.history.end(), [](const Evaluation& e) { return e.ms > 0; }));
  }

  // Measured or picked: by code class, since a variant whose code another
  // one shares has that one's time.
  bool seen(std::uint64_t index) const { return seen_.count(space_.code_class(index)) > 0; }
  bool mark(std::uint64_t index) { return seen_.insert(space_.code_class(index)).second; }

  double predict(const kernel::Variant& v) const { return predicted_log_ms(model_, features_, v, correction_); }

  Scored scored(std::uint64_t index, kernel::Variant v) const {
    const double p = predict(v);
    return {p, index, std::move(v)};
  }

  // At most kScanned candidates per call: a huge space whose admitted
  // variants are rare ends the search instead of scanning 2^40 of them.
  std::vector<Scored> in_order(std::size_t count) {
    constexpr std::uint64_t kScanned = std::uint64_t{1} << 22;
    std::vector<Scored> out;
    const std::uint64_t stop = next_in_order_ + std::min(space_.candidates() - next_in_order_, kScanned);
    for (; next_in_order_ < stop && out.size() < count; ++next_in_order_)
      if (!seen(next_in_order_))
        if (auto v = space_.admitted(next_in_order_)) {
          mark(next_in_order_);
          out.push_back(scored(next_in_order_, std::move(*v)));
        }
    return out;
  }

  std::vector<Scored> at_random(std::size_t count) {
    std::vector<Scored> out;
    if (!small_space_.empty() || space_.candidates() <= kPoolSize) {
      if (shuffled_.empty() && !small_space_.empty()) {
        shuffled_ = small_space_;
        std::shuffle(shuffled_.begin(), shuffled_.end(), rng_);
      }
      for (; next_shuffled_ < shuffled_.size() && out.size() < count; ++next_shuffled_) {
        const std::uint64_t i = shuffled_[next_shuffled_];
        if (mark(i)) out.push_back(scored(i, *space_.admitted(i)));
      }
      return out;
    }
    std::uniform_int_distribution<std::uint64_t> pick(0, space_.candidates() - 1);
    for (std::size_t tries = 0; out.size() < count && tries < 1000 * (count + 1); ++tries) {
      const std::uint64_t i = pick(rng_);
      if (seen(i)) continue;
      if (auto v = space_.admitted(i)) {
        mark(i);
        out.push_back(scored(i, std::move(*v)));
      }
    }
    if (out.empty()) return in_order(count);  // a sparse space: find what is left in order
    return out;
  }

  // The unmeasured candidates a round ranks: the whole admitted space when
  // it is small, else a fresh sample of kPoolSize.
  std::vector<Scored> pool() {
    std::vector<Scored> out;
    if (space_.candidates() <= kPoolSize) {
      for (const std::uint64_t i : small_space_)
        if (!seen(i)) out.push_back(scored(i, *space_.admitted(i)));
      return out;
    }
    std::uniform_int_distribution<std::uint64_t> pick(0, space_.candidates() - 1);
    std::set<std::uint64_t> drawn;
    for (std::size_t tries = 0; drawn.size() < kPoolSize && tries < 4 * kPoolSize; ++tries) {
      const std::uint64_t i = pick(rng_);
      if (!seen(i) && !drawn.count(space_.code_class(i)))
        if (auto v = space_.admitted(i)) {
          drawn.insert(space_.code_class(i));
          out.push_back(scored(i, std::move(*v)));
        }
    }
    return out;
  }

  // The first round when the static analyses tell variants apart: the
  // variants the prior ranks fastest. Those within kPriorTie of its best are
  // ties, drawn by the seed: the prior's models are rough (a register tile's
  // FMA share, a walk's cache misses), and a few per cent between two
  // predictions says less than the machine does. On Zen 4 the prior puts
  // matmul_space's 6x64 and 12x32 tiles 2 % ahead of 4x64, 8x32 and 16x16;
  // in one sweep's first timings 3 of the former's 108 codes with B's panel
  // by rows were within 5 % of the best and 23 of 4x64's and 8x32's 108 (the
  // constructor has the replays). An earlier first round with a quarter at
  // random, so that the first fit also saw what the prior thinks slow,
  // needed more evaluations (session 15's replay: 10.5 against 9.3): each
  // later round has its random pick.
  std::vector<Scored> by_prior(std::size_t count) {
    constexpr double kPriorTie = 0.03;  // log(time): 3 %
    std::vector<Scored> candidates = pool();
    std::shuffle(candidates.begin(), candidates.end(), rng_);
    std::stable_sort(candidates.begin(), candidates.end(), [](const Scored& a, const Scored& b) { return a.log_ms < b.log_ms; });
    // A round of one or two (a space of under 30 variants) has no room to
    // spread over the ties, and the prior's best is then the better bet:
    // transpose3d_021's 16 x 16 tiles in loops of 32 run 18 % ahead of the
    // same tiles in loops of 16, and the walk puts them 1.2 % ahead.
    constexpr std::size_t kDrawnRound = 3;
    if (count >= kDrawnRound) {
      const auto tied = std::find_if(candidates.begin(), candidates.end(),
                                     [&](const Scored& s) { return s.log_ms > candidates.front().log_ms + kPriorTie; });
      std::shuffle(candidates.begin(), tied, rng_);
      // Where the near ties do not fill the round, the rest of it is drawn
      // among the next best, half a round more of them: otherwise the seed
      // changed only the order. transpose2d at N=4096 has two near ties and
      // a round of 4, and seeds 1 to 5 measured the same four (issue 61).
      const auto band = candidates.begin() + static_cast<std::ptrdiff_t>(std::min(candidates.size(), count + count / 2));
      if (tied < band) std::shuffle(tied, band, rng_);
    }
    if (count >= kDrawnRound) {
      candidates = covering_data_layouts(std::move(candidates), count);
    } else if (candidates.size() > count) {
      candidates.resize(count);
    }
    for (const auto& s : candidates) mark(s.index);
    return candidates;
  }

  // The first `count` of the prior's order, except that each alternative
  // of each tensor's data layout is represented by its prior-best variant
  // while there is room after the overall best (a round of three or more:
  // in one or two the prior's best are the better bet, as above). The prior prices a layout
  // by its misses, but what a store costs (read for ownership, streamed,
  // the run it writes) differs by machine: where no timing has a layout,
  // the first fit cannot move it. transpose2d at 8192^2 on a Zen 5 guest
  // measured B by column tiles 1.5x ahead of B by rows, which the prior
  // puts 1.2x ahead: its first round of four held only B by rows, and the
  // model needed 15 evaluations to reach the column tiles.
  std::vector<Scored> covering_data_layouts(std::vector<Scored> ordered, std::size_t count) const {
    if (ordered.size() <= count) return ordered;
    std::vector<std::size_t> taken = {0};  // positions in `ordered`, in the round's order
    const auto& axes = space_.axes();
    std::vector<std::vector<std::size_t>> digits;
    digits.reserve(ordered.size());
    for (const Scored& s : ordered) digits.push_back(space_.digits(s.index));
    for (std::size_t a = 0; a < axes.size() && taken.size() < count; ++a) {
      const bool data_layout = axes[a].is_layout && axes[a].size() > 1 &&
                               std::any_of(space_.spec().tensors.begin(), space_.spec().tensors.end(),
                                           [&](const kernel::TensorSpec& t) { return t.name == axes[a].name; });
      if (!data_layout) continue;
      for (std::size_t choice = 0; choice < axes[a].size() && taken.size() < count; ++choice) {
        const auto has = [&](std::size_t k) { return digits[k][a] == choice; };
        if (std::any_of(taken.begin(), taken.end(), has)) continue;
        for (std::size_t k = 1; k < ordered.size(); ++k)
          if (has(k)) {  // not taken: no taken variant has this choice
            taken.push_back(k);
            break;
          }
      }
    }
    // Measured in this order: a budget that ends within the round has the alternatives' first.
    for (std::size_t k = 1; k < ordered.size() && taken.size() < count; ++k)
      if (std::find(taken.begin(), taken.end(), k) == taken.end()) taken.push_back(k);
    std::vector<Scored> round;
    for (const std::size_t k : taken) round.push_back(std::move(ordered[k]));
    return round;
  }

  // The best measured variants' neighbours: each axis stepped by one value
  // (a parameter) or set to another alternative (a layout).
  std::vector<Scored> neighbours() {
    std::vector<const Evaluation*> parents;
    for (const auto& e : report_.history)
      if (e.ms > 0) parents.push_back(&e);
    std::sort(parents.begin(), parents.end(), [](const Evaluation* a, const Evaluation* b) { return a->ms < b->ms; });
    if (parents.size() > 4) parents.resize(4);
    std::set<std::uint64_t> made;
    std::vector<Scored> out;
    const auto& axes = space_.axes();
    const auto consider = [&](const std::vector<std::size_t>& d) {
      const std::uint64_t i = space_.index_of(d);
      if (seen(i) || !made.insert(space_.code_class(i)).second) return;
      if (auto v = space_.admitted(i)) out.push_back(scored(i, std::move(*v)));
    };
    for (const Evaluation* p : parents) {
      const std::vector<std::size_t> d = space_.digits(p->index);
      for (std::size_t a = 0; a < axes.size(); ++a) {
        if (axes[a].size() < 2) continue;
        for (std::size_t k = 0; k < axes[a].size(); ++k) {
          const bool step = !axes[a].is_layout && (k + 1 == d[a] || k == d[a] + 1);
          if (k == d[a] || (!axes[a].is_layout && !step)) continue;
          std::vector<std::size_t> child = d;
          child[a] = k;
          consider(child);
        }
      }
      // Two axes at once, drawn by the seed: a way out of a local optimum.
      for (int m = 0; m < 8; ++m) {
        std::vector<std::size_t> child = d;
        for (int twice = 0; twice < 2; ++twice) {
          const std::size_t a = std::uniform_int_distribution<std::size_t>(0, axes.size() - 1)(rng_);
          child[a] = std::uniform_int_distribution<std::size_t>(0, axes[a].size() - 1)(rng_);
        }
        consider(child);
      }
    }
    return out;
  }

  std::vector<Scored> guided(std::size_t count) {
    std::vector<Scored> candidates = options_.strategy == Strategy::Evolve ? neighbours() : pool();
    if (candidates.empty()) return at_random(count);
    const auto faster = [](const Scored& a, const Scored& b) { return a.log_ms < b.log_ms; };
    std::stable_sort(candidates.begin(), candidates.end(), faster);
    std::vector<Scored> out;
    std::set<std::uint64_t> picked;
    // One pick from the rest at random: the model learns where it is wrong.
    // The model strategy takes it every other round: with one each round a
    // quarter of its evaluations went to variants its prior rightly ranked
    // slow (replays, 20 seeds, first timings: matmul_space 21.9 evaluations
    // to within 5 % against 15.7; transpose_space 137.6 against 125.2), and
    // with none the refit never saw a best its prior ranks last (the planted
    // test). Evolve's neighbourhoods need it each round (its replays got
    // worse without).
    ++guided_rounds_;
    const bool explore = options_.strategy == Strategy::Evolve || guided_rounds_ % 2 == 0;
    const std::size_t best = count >= 2 && explore ? count - 1 : count;
    if (options_.strategy == Strategy::Model) {
      // The model's picks from the best variants' neighbourhood first (a
      // trust region: the model is most right near what it has measured;
      // three quarters did worse on both enlarged spaces' replays), the
      // whole space's best predictions when the neighbourhood runs out, and
      // a pick from the whole space at random (every other round).
      std::vector<Scored> near = neighbours();
      std::stable_sort(near.begin(), near.end(), faster);
      for (std::size_t k = 0; k < near.size() && out.size() < best; ++k)
        if (picked.insert(space_.code_class(near[k].index)).second) out.push_back(std::move(near[k]));
    }
    std::size_t next = 0;
    for (; next < candidates.size() && out.size() < best; ++next)
      if (picked.insert(space_.code_class(candidates[next].index)).second) out.push_back(std::move(candidates[next]));
    if (out.size() < count && candidates.size() > next) {
      const std::size_t k = std::uniform_int_distribution<std::size_t>(next, candidates.size() - 1)(rng_);
      if (picked.insert(space_.code_class(candidates[k].index)).second) out.push_back(std::move(candidates[k]));
    }
    // Picked before the random fill, which must not pick them again.
    for (const auto& s : out) mark(s.index);
    if (out.size() < count)
      for (auto& r : at_random(count - out.size())) out.push_back(std::move(r));
    return out;
  }

  int guided_rounds_ = 0;  // the rounds guided() has picked, for the model's exploration
  bool measure_batch(const std::vector<Scored>& picks) {
    std::vector<kernel::Variant> batch;
    for (const auto& p : picks) batch.push_back(p.variant);
    const std::vector<double> times = measure_(batch);
    const double at = now();
    const bool fitted = model_.trained_on() > 0;
    for (std::size_t k = 0; k < times.size() && k < picks.size(); ++k) {
      report_.history.push_back({picks[k].index, picks[k].variant.id, times[k], std::exp(picks[k].log_ms), at});
      if (times[k] > 0) {
        rows_.push_back(features_.of(picks[k].variant));
        residuals_.push_back(std::log(times[k]) - features_.prior_log_ms(picks[k].variant) - correction_.of(rows_.back()));
        if (fitted) {
          predicted_.push_back(picks[k].log_ms);
          measured_.push_back(std::log(times[k]));
        }
      }
    }
    if (options_.strategy == Strategy::Model || options_.strategy == Strategy::Evolve) {
      drop_a_correction_its_timings_refute();
      model_.fit(rows_, residuals_, features_.raw_columns());
    }
    return times.size() == picks.size();
  }

  // Once the search's own timings refute the other kernels' correction
  // (search/transfer.hpp: refutes), it goes on from the prior and its own
  // timings alone for the rest of the search; judged after every round
  // from kTimingsToJudgeACorrection timings on.
  void drop_a_correction_its_timings_refute() {
    if (residuals_.size() < kTimingsToJudgeACorrection || !refutes(correction_, rows_, residuals_)) return;
    for (std::size_t k = 0; k < rows_.size(); ++k) residuals_[k] += correction_.of(rows_[k]);
    correction_ = {};
    report_.transfer_dropped_after = residuals_.size();
  }

  void finish() {
    for (std::size_t k = 0; k < report_.history.size(); ++k) {
      const double ms = report_.history[k].ms;
      if (ms > 0 && (!report_.best || ms < report_.history[*report_.best].ms)) report_.best = k;
    }
    report_.seconds = now();
    report_.spearman_pairs = predicted_.size();
    report_.spearman = predicted_.size() >= 3 ? spearman(predicted_, measured_) : 0.0;
    report_.model = model_.kind_name();
    report_.held_out_spearman = model_.held_out_spearman();
    if (!report_.exhausted && !small_space_.empty() && seen_.size() >= small_space_.size()) report_.exhausted = true;
  }

  const kernel::LazySpace& space_;
  const Features& features_;
  SearchOptions options_;
  const MeasureBatch& measure_;
  Clock clock_;
  std::mt19937_64 rng_;
  std::size_t batch_ = 4, first_ = 8;
  std::vector<std::uint64_t> small_space_, shuffled_;
  std::size_t next_shuffled_ = 0;
  std::uint64_t next_in_order_ = 0;
  std::set<std::uint64_t> seen_;  // code classes
  CostModel model_;
  PriorCorrection correction_;  // the other kernels' timings (SearchOptions::transfer), fitted once
  std::vector<std::vector<double>> rows_;
  std::vector<double> residuals_, predicted_, measured_;
  SearchReport report_;
};

}  // namespace

SearchReport run_search(const kernel::LazySpace& space, const Features& features, const SearchOptions& options, const MeasureBatch& measure,
                        const Clock& clock) {
  Clock c = clock;
  if (!c) {
    const auto start = std::chrono::steady_clock::now();
    c = [start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  }
  return Search(space, features, options, measure, c).run();
}

}  // namespace lego::search
