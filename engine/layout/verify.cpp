#include "layout/verify.hpp"

#include "layout/shape.hpp"

namespace lego {

namespace {

thread_local CheckControl current_control;

// Called once per element; every 2^20 elements it reports progress and
// honours a cancel request, so the per-element cost stays one increment.
class CheckPacer {
 public:
  explicit CheckPacer(std::int64_t total) : total_(total), control_(check_control()) {}
  void step() {
    if ((++done_ & ((std::int64_t{1} << 20) - 1)) != 0) return;
    if (control_.cancel && control_.cancel->load())
      throw CheckCancelled("the exhaustive check stopped at " + std::to_string(done_) + " of " + std::to_string(total_) + " elements");
    if (control_.progress && total_ > control_.report_above) control_.progress(done_, total_);
  }

 private:
  std::int64_t total_, done_ = 0;
  const CheckControl& control_;
};

}  // namespace

const CheckControl& check_control() { return current_control; }

ScopedCheckControl::ScopedCheckControl(CheckControl control) : previous_(std::move(current_control)) {
  current_control = std::move(control);
}

ScopedCheckControl::~ScopedCheckControl() { current_control = std::move(previous_); }

BijectivityReport check_bijective(const MapUnderTest& m, std::int64_t limit) {
  BijectivityReport r;
  const std::int64_t n = product(m.shape);
  if (n > limit || m.range > limit) {
    r.evidence =
        "not checked: " + std::to_string(std::max(n, m.range)) + " elements exceed the exhaustive-check limit of " + std::to_string(limit);
    return r;
  }
  r.checked = true;
  const std::size_t rank = m.shape.size();
  std::vector<bool> seen(static_cast<std::size_t>(m.range), false);
  std::vector<std::int64_t> idx(rank, 0), back(rank, 0);
  std::int64_t reached = 0;
  std::optional<std::int64_t> collision_value;
  std::vector<std::int64_t> collision_second;
  bool more = n > 0;
  CheckPacer pacer(n);
  while (more) {
    pacer.step();
    const std::int64_t x = m.apply(idx.data());
    if (x == -1 && m.allow_dropped) {
      more = next_index(idx, m.shape);
      continue;
    }
    if (x < 0 || x >= m.range) {
      r.evidence = "apply" + index_text(idx.data(), rank) + " = " + std::to_string(x) + " is outside [0, " + std::to_string(m.range) + ")";
      return r;
    }
    if (seen[static_cast<std::size_t>(x)] && !collision_value) {
      collision_value = x;
      collision_second = idx;
    }
    if (!seen[static_cast<std::size_t>(x)]) ++reached;
    seen[static_cast<std::size_t>(x)] = true;
    if (m.inv && !collision_value) {
      m.inv(x, back.data());
      if (back != idx) {
        r.evidence = "inv(apply" + index_text(idx.data(), rank) + ") = inv(" + std::to_string(x) + ") = " + index_text(back.data(), rank) +
                     ", not the index itself";
        return r;
      }
    }
    more = next_index(idx, m.shape);
  }
  if (collision_value) {
    std::vector<std::int64_t> first(rank, 0);
    do {
      if (m.apply(first.data()) == *collision_value) break;
    } while (next_index(first, m.shape));
    r.evidence = "not injective: apply" + index_text(first.data(), rank) + " = apply" + index_text(collision_second.data(), rank) + " = " +
                 std::to_string(*collision_value);
    return r;
  }
  if (reached != m.range) {
    std::int64_t hole = 0;
    while (seen[static_cast<std::size_t>(hole)]) ++hole;
    r.evidence = "not onto: no index reaches physical position " + std::to_string(hole) + " (" + std::to_string(reached) + " of " +
                 std::to_string(m.range) + " reached)";
    return r;
  }
  r.bijective = true;
  r.evidence = "all " + std::to_string(m.range) + " physical positions reached exactly once" +
               std::string(m.inv ? ", and inv(apply(i)) == i for every index" : "");
  return r;
}

BijectivityReport check_bijective(const Plan& plan, std::int64_t limit) {
  MapUnderTest m;
  m.shape = plan.shape();
  m.range = plan.physical_size();
  m.apply = [&](const std::int64_t* i) { return plan.apply(i); };
  if (plan.has_inverse()) m.inv = [&](std::int64_t x, std::int64_t* i) { plan.inv(x, i); };
  m.allow_dropped = plan.layout().expand.has_value();
  return check_bijective(m, limit);
}

void validate_user_genps(BoundLayout& layout, std::int64_t limit) {
  for (const auto& o : layout.chain)
    for (const auto& p : o.pieces) {
      if (!p.genp || p.genp->trusted()) continue;
      const GenPFunction& f = *p.genp;
      MapUnderTest m;
      m.shape = f.dims();
      m.range = f.size();
      m.apply = [&](const std::int64_t* i) { return f.apply(i); };
      if (f.has_inverse()) {
        m.inv = [&](std::int64_t x, std::int64_t* i) { f.inv(x, i); };
        const BijectivityReport r = check_bijective(m, limit);
        if (r.checked && !r.bijective) throw LegoError(p.span, "GenP is not a bijection: " + r.evidence);
        continue;
      }
      // Apply-only (injective or broadcast): its offsets fix the memory it
      // needs, so every index is evaluated, however large.
      if (f.size() > limit)
        throw LegoError(p.span, "this apply-only GenP has " + std::to_string(f.size()) +
                                    " elements; its footprint is found by evaluating every index, at most " + std::to_string(limit));
      std::vector<std::int64_t> idx(f.dims().size(), 0);
      std::int64_t largest = -1;
      CheckPacer pacer(f.size());
      do {
        pacer.step();
        const std::int64_t x = f.apply(idx.data());
        if (x < 0) throw LegoError(p.span, "GenP apply" + index_text(idx.data(), idx.size()) + " = " + std::to_string(x) + " is negative");
        largest = std::max(largest, x);
      } while (next_index(idx, f.dims()));
      layout.footprint = largest + 1;
    }
}

}  // namespace lego
