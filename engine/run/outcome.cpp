#include "run/outcome.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

namespace lego::run {

namespace {
constexpr std::array<std::pair<Status, const char*>, 14> kWords = {{{Status::NotRun, "not run"},
                                                                    {Status::Ok, "ok"},
                                                                    {Status::Wrong, "wrong"},
                                                                    {Status::CompileError, "compile-error"},
                                                                    {Status::OutOfBounds, "out of bounds"},
                                                                    {Status::Crashed, "crashed"},
                                                                    {Status::Timeout, "timeout"},
                                                                    {Status::Cancelled, "cancelled"},
                                                                    {Status::NoGpu, "no GPU"},
                                                                    {Status::Error, "error"},
                                                                    {Status::Invalid, "invalid"},
                                                                    {Status::Duplicate, "duplicate"},
                                                                    {Status::Imported, "imported"},
                                                                    {Status::RuledOut, "ruled out"}}};
}  // namespace

const char* status_text(Status status) {
  for (const auto& [s, word] : kWords)
    if (s == status) return word;
  return "error";
}

Status status_from_text(const std::string& text) {
  for (const auto& [s, word] : kWords)
    if (text == word) return s;
  return Status::Error;
}

bool is_failure(Status status) {
  switch (status) {
    case Status::Ok:
    case Status::NoGpu:
    case Status::Imported:
    case Status::Invalid:
    case Status::RuledOut:
    case Status::Duplicate:
    case Status::NotRun:
      return false;
    default:
      return true;
  }
}

std::vector<BaselineTime> baseline_times(const std::vector<Outcome>& outcomes) {
  std::vector<BaselineTime> times;
  for (const Outcome& o : outcomes)
    if (o.baseline && o.ms > 0) times.push_back({o.key().name, o.ms});
  return times;
}

const char* verification_mark(const Outcome& outcome) {
  if (outcome.verified) return "✓";
  // Not run here is not failed: no GPU, ruled out by the target, the same
  // code as another row (its result is that row's), a baseline timed alone.
  const bool not_run = outcome.status == Status::NoGpu || outcome.status == Status::RuledOut || outcome.status == Status::Duplicate;
  return not_run || (outcome.baseline && outcome.status == Status::Ok) ? "–" : "✗";
}

bool can_win(const Outcome& outcome) { return !outcome.baseline && outcome.verified && outcome.ms > 0; }

std::optional<std::size_t> winner(const std::vector<const Outcome*>& outcomes) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (can_win(*outcomes[i]) && (!best || outcomes[i]->ms < outcomes[*best]->ms)) best = i;
  return best;
}

std::optional<std::size_t> winner(const std::vector<Outcome>& outcomes) {
  std::vector<const Outcome*> all;
  for (const Outcome& o : outcomes) all.push_back(&o);
  return winner(all);
}

std::vector<const Outcome*> table_order(const std::vector<Outcome>& outcomes) {
  std::vector<const Outcome*> table;
  for (const auto& r : outcomes) table.push_back(&r);
  std::stable_sort(table.begin(), table.end(), [](const Outcome* a, const Outcome* b) {
    const bool ta = a->ms > 0, tb = b->ms > 0;
    return ta != tb ? ta : (ta && a->ms < b->ms);
  });
  return table;
}

std::optional<std::size_t> static_winner(const std::vector<const Outcome*>& outcomes) {
  // Smaller is better in every place; a figure that does not apply counts as its best.
  const auto key = [](const Outcome& o) {
    return std::tuple(o.bank_ways < 0 ? 1 : o.bank_ways, o.coalesced_percent < 0 ? 0.0 : -o.coalesced_percent,
                      o.lines_per_iteration < 0 ? 0.0 : o.lines_per_iteration);
  };
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const Outcome& o = *outcomes[i];
    if (o.baseline || !o.verified || !o.accesses) continue;
    if (!best || key(o) < key(*outcomes[*best])) best = i;
  }
  return best;
}

}  // namespace lego::run
