#include "layout/plan.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "layout/divisor.hpp"
#include "layout/shape.hpp"

namespace lego {

namespace {

constexpr int kMaxAccumulators = kMaxLayoutRank + 1;

int log2_or_minus1(std::int64_t r) { return (r > 0 && (r & (r - 1)) == 0) ? __builtin_ctzll(static_cast<unsigned long long>(r)) : -1; }

SubDigit digit(std::int64_t radix, std::int64_t mult, int target) { return {radix, mult, target, log2_or_minus1(radix)}; }

// Drops radix-1 digits and merges neighbours that continue each other.
void normalize_digits(std::vector<SubDigit>::const_iterator begin, std::vector<SubDigit>::const_iterator end, std::vector<SubDigit>& out) {
  const std::size_t first = out.size();
  for (auto it = begin; it != end; ++it) {
    const SubDigit& sd = *it;
    if (sd.radix == 1) continue;
    if (out.size() > first) {
      SubDigit& prev = out.back();
      if (prev.target == sd.target && sd.mult == prev.mult * prev.radix) {
        prev = digit(prev.radix * sd.radix, prev.mult, prev.target);
        continue;
      }
    }
    out.push_back(sd);
  }
}

void normalize(Step& s) {
  std::vector<SubDigit> digits;
  std::vector<int> ends;
  int begin = 0;
  for (int end : s.coord_end) {
    normalize_digits(s.digits.begin() + begin, s.digits.begin() + end, digits);
    ends.push_back(static_cast<int>(digits.size()));
    begin = end;
  }
  s.digits = std::move(digits);
  s.coord_end = std::move(ends);
  for (auto& c : s.calls)
    for (auto& r : c.results) {
      std::vector<SubDigit> tidy;
      normalize_digits(r.begin(), r.end(), tidy);
      r = std::move(tidy);
    }
}

Step single_input(std::vector<SubDigit> digits) {
  Step s;
  s.coord_end = {static_cast<int>(digits.size())};
  s.digits = std::move(digits);
  return s;
}

// flat(i, G): one sub-digit per coordinate.
Step flatten_step(const std::vector<std::int64_t>& g) {
  Step s;
  const Shape weights = row_major_weights(g);
  for (std::size_t k = 0; k < g.size(); ++k) {
    s.digits.push_back(digit(g[k], weights[k], 0));
    s.coord_end.push_back(static_cast<int>(s.digits.size()));
  }
  return s;
}

// unflat(x, G): coordinate k is output k.
Step unflatten_step(const std::vector<std::int64_t>& g) {
  std::vector<SubDigit> digits;
  for (std::size_t k = g.size(); k-- > 0;) digits.push_back(digit(g[k], 1, static_cast<int>(k)));
  Step s = single_input(std::move(digits));
  s.outputs = static_cast<int>(g.size());
  return s;
}

// O.apply(unflat(x, dims(O))): digits of every dimension, last first.
Step orderby_apply_step(const BoundOrderBy& o) {
  std::vector<SubDigit> digits;
  Step s;
  std::int64_t piece_stride = 1;
  std::vector<GenPCall> calls;
  for (std::size_t p = o.pieces.size(); p-- > 0;) {
    const BoundPiece& piece = o.pieces[p];
    const int r = static_cast<int>(piece.dims.size());
    if (piece.genp) {
      const int first = s.slot_count;
      s.slot_count += r;
      for (int m = r; m-- > 0;) digits.push_back(digit(piece.dims[m], 1, 1 + first + m));  // slots follow the one output
      calls.push_back({piece.genp.get(), false, first, {{digit(piece.size(), piece_stride, 0)}}});
    } else {
      // RegP: apply(i) = flat(s(i), s(n)); dim perm[t] sits at position t.
      const auto phys_weights = row_major_weights([&] {
        std::vector<std::int64_t> sn;
        for (int t : piece.perm) sn.push_back(piece.dims[t]);
        return sn;
      }());
      std::vector<std::int64_t> weight_of_dim(r);
      for (int t = 0; t < r; ++t) weight_of_dim[piece.perm[t]] = phys_weights[t];
      for (int m = r; m-- > 0;) digits.push_back(digit(piece.dims[m], weight_of_dim[m] * piece_stride, 0));
    }
    piece_stride *= piece.size();
  }
  Step out = single_input(std::move(digits));
  out.slot_count = s.slot_count;
  out.calls = std::move(calls);
  return out;
}

// flat(O.inv(y), dims(O)): physical digits of each piece, last piece first.
Step orderby_inv_step(const BoundOrderBy& o) {
  const auto w = row_major_weights(o.dims());
  std::vector<SubDigit> digits;
  std::vector<GenPCall> calls;
  int slots = 0;
  std::size_t offset = 0;
  std::vector<std::size_t> offsets;
  for (const auto& p : o.pieces) {
    offsets.push_back(offset);
    offset += p.dims.size();
  }
  for (std::size_t p = o.pieces.size(); p-- > 0;) {
    const BoundPiece& piece = o.pieces[p];
    const int r = static_cast<int>(piece.dims.size());
    if (piece.genp) {
      digits.push_back(digit(piece.size(), 1, 1 + slots));
      std::vector<std::vector<SubDigit>> results;
      for (int m = 0; m < r; ++m) results.push_back({digit(piece.dims[m], w[offsets[p] + m], 0)});
      calls.push_back({piece.genp.get(), true, slots, std::move(results)});
      ++slots;
    } else {
      for (int t = r; t-- > 0;) {
        const int m = piece.perm[t];
        digits.push_back(digit(piece.dims[m], w[offsets[p] + m], 0));
      }
    }
  }
  Step s = single_input(std::move(digits));
  s.slot_count = slots;
  s.calls = std::move(calls);
  return s;
}

// ExpandBy's inv prelude: flat(unflat(x, n_orig), n_exp). Injective, so it
// never fuses with what follows; that is checked by compose().
Step widen_step(const std::vector<std::int64_t>& original, const std::vector<std::int64_t>& expanded) {
  const auto w = row_major_weights(expanded);
  std::vector<SubDigit> digits;
  for (std::size_t k = original.size(); k-- > 0;) digits.push_back(digit(original[k], w[k], 0));
  return single_input(std::move(digits));
}

std::vector<Step> fuse(std::vector<Step> steps) {
  std::vector<Step> out;
  for (auto& s : steps) {
    normalize(s);
    Step fused;
    if (!out.empty() && compose(out.back(), s, fused)) {
      out.back() = std::move(fused);
    } else {
      out.push_back(std::move(s));
    }
  }
  return out;
}

// Adds v, split into the sub-digits [d, end), to the accumulators.
inline void scatter(std::int64_t v, const SubDigit* d, const SubDigit* end, std::int64_t* acc) {
  if (d == end) return;
  for (; d + 1 < end; ++d) {
    std::int64_t digit_value;
    if (d->shift >= 0) {
      digit_value = v & (d->radix - 1);
      v >>= d->shift;
    } else if (static_cast<std::uint64_t>(v) <= 0xffffffffu) {  // 32-bit division is several times cheaper
      const auto v32 = static_cast<std::uint32_t>(v), r32 = static_cast<std::uint32_t>(d->radix);
      digit_value = v32 % r32;
      v = v32 / r32;
    } else {
      digit_value = v % d->radix;
      v /= d->radix;
    }
    acc[d->target] += digit_value * d->mult;
  }
  acc[d->target] += v * d->mult;  // the top digit needs no mod
}

// Accumulates a step's input sub-digits; finish_step() runs the GenP calls.
inline void run_step(const Step& s, const std::int64_t* in, std::int64_t* acc) {
  const int n_acc = s.outputs + s.slot_count;
  for (int a = 0; a < n_acc; ++a) acc[a] = 0;
  const SubDigit* d = s.digits.data();
  int begin = 0;
  for (std::size_t k = 0; k < s.coord_end.size(); ++k) {
    scatter(in[k], d + begin, d + s.coord_end[k], acc);
    begin = s.coord_end[k];
  }
}

// Runs the step's GenP calls in order on `work`, a mutable copy of the
// accumulators (a call's results may fill the slots of a later call).
inline void run_calls(const Step& s, std::int64_t* work) {
  std::array<std::int64_t, kMaxAccumulators> values;
  for (const GenPCall& c : s.calls) {
    const std::int64_t* args = work + s.outputs + c.first_slot;
    if (!c.inverse)
      values[0] = c.fn->apply(args);
    else
      c.fn->inv(args[0], values.data());
    for (std::size_t m = 0; m < c.results.size(); ++m) {
      const auto& r = c.results[m];
      if (r.size() == 1)
        work[r[0].target] += values[m] * r[0].mult;
      else
        scatter(values[m], r.data(), r.data() + r.size(), work);
    }
  }
}

// The step's outputs from its accumulators (acc is left untouched).
inline void finish_step(const Step& s, const std::int64_t* acc, std::int64_t* res) {
  if (s.calls.empty()) {
    std::copy(acc, acc + s.outputs, res);
    return;
  }
  std::array<std::int64_t, kMaxAccumulators> work;
  std::copy(acc, acc + s.outputs + s.slot_count, work.data());
  run_calls(s, work.data());
  std::copy(work.data(), work.data() + s.outputs, res);
}

// Runs steps on one input; writes the last step's outputs to res.
void run_steps(const std::vector<Step>& steps, const std::int64_t* in, std::int64_t* res) {
  std::array<std::int64_t, kMaxAccumulators> acc;
  run_step(steps[0], in, acc.data());
  finish_step(steps[0], acc.data(), res);
  for (std::size_t k = 1; k < steps.size(); ++k) {
    const std::int64_t x = res[0];
    run_step(steps[k], &x, acc.data());
    finish_step(steps[k], acc.data(), res);
  }
}

}  // namespace

const char* to_string(LayoutClass c) {
  switch (c) {
    case LayoutClass::Affine:
      return "affine";
    case LayoutClass::QuasiAffine:
      return "quasi-affine";
    case LayoutClass::General:
      return "general";
  }
  return "general";
}

bool compose(const Step& first, const Step& second, Step& out) {
  if (first.outputs != 1 || second.coord_end.size() != 1) return false;
  // Everything first adds to its output, read in order of multipliers, must
  // be a mixed-radix number covering [0, N) exactly.
  std::vector<std::pair<std::int64_t, std::int64_t>> by_mult;  // (mult, radix)
  auto collect = [&](const std::vector<SubDigit>& digits) {
    for (const auto& d : digits)
      if (d.target == 0) by_mult.emplace_back(d.mult, d.radix);
  };
  collect(first.digits);
  for (const auto& c : first.calls)
    for (const auto& r : c.results) collect(r);
  std::sort(by_mult.begin(), by_mult.end());
  std::int64_t expected = 1;
  std::vector<std::int64_t> boundaries;
  for (auto [mult, radix] : by_mult) {
    if (mult != expected) return false;
    boundaries.push_back(mult);
    expected *= radix;
  }
  std::int64_t second_size = 1;
  std::vector<std::int64_t> second_starts;  // Q_j
  for (const auto& d : second.digits) {
    second_starts.push_back(second_size);
    second_size *= d.radix;
  }
  if (expected != second_size) return false;
  boundaries.insert(boundaries.end(), second_starts.begin(), second_starts.end());
  boundaries.push_back(expected);
  std::sort(boundaries.begin(), boundaries.end());
  boundaries.erase(std::unique(boundaries.begin(), boundaries.end()), boundaries.end());
  for (std::size_t k = 1; k < boundaries.size(); ++k)
    if (boundaries[k] % boundaries[k - 1] != 0) return false;

  // Accumulator layout of the result: second's outputs, first's slots, second's slots.
  auto second_target = [&](int t) { return t < second.outputs ? t : t + first.slot_count; };
  auto route = [&](const std::vector<SubDigit>& digits) {
    std::vector<SubDigit> routed;
    for (const SubDigit& d : digits) {
      if (d.target != 0) {  // into one of first's slots
        routed.push_back(digit(d.radix, d.mult, second.outputs + d.target - 1));
        continue;
      }
      const std::int64_t top = d.mult * d.radix;
      for (auto u = std::lower_bound(boundaries.begin(), boundaries.end(), d.mult); *u < top; ++u) {
        const std::int64_t lo = *u, hi = *(u + 1);
        // second's digit j holds [Q_j, Q_j * radix_j); lo lies in exactly one.
        const std::size_t j =
            static_cast<std::size_t>(std::upper_bound(second_starts.begin(), second_starts.end(), lo) - second_starts.begin() - 1);
        const SubDigit& s = second.digits[j];
        routed.push_back(digit(hi / lo, s.mult * (lo / second_starts[j]), second_target(s.target)));
      }
    }
    return routed;
  };

  out = Step{};
  out.outputs = second.outputs;
  out.slot_count = first.slot_count + second.slot_count;
  int begin = 0;
  for (int end : first.coord_end) {
    const auto routed = route(std::vector<SubDigit>(first.digits.begin() + begin, first.digits.begin() + end));
    out.digits.insert(out.digits.end(), routed.begin(), routed.end());
    out.coord_end.push_back(static_cast<int>(out.digits.size()));
    begin = end;
  }
  for (const GenPCall& c : first.calls) {
    GenPCall routed = c;
    for (auto& r : routed.results) r = route(r);
    out.calls.push_back(std::move(routed));
  }
  for (const GenPCall& c : second.calls) {
    GenPCall moved = c;
    moved.first_slot += first.slot_count;
    for (auto& r : moved.results)
      for (auto& d : r) d.target = second_target(d.target);
    out.calls.push_back(std::move(moved));
  }
  normalize(out);
  return true;
}

Plan::Plan(BoundLayout layout) : layout_(std::move(layout)) {
  const auto& chain = layout_.chain;
  if (static_cast<int>(layout_.shape.size()) + 1 > kMaxAccumulators)
    throw LegoError("layouts of rank above " + std::to_string(kMaxAccumulators - 1) + " are not supported");
  std::vector<Step> apply;
  apply.push_back(flatten_step(layout_.shape));
  for (std::size_t k = chain.size(); k-- > 0;) apply.push_back(orderby_apply_step(chain[k]));
  apply_steps_ = fuse(std::move(apply));

  if (!layout_.injective) {
    std::vector<Step> inv;
    if (layout_.expand) inv.push_back(widen_step(layout_.expand->original, layout_.expand->expanded));
    for (const auto& o : chain) inv.push_back(orderby_inv_step(o));
    inv.push_back(unflatten_step(layout_.shape));
    inv_steps_ = fuse(std::move(inv));
  }
  direct_calls_ = apply_steps_.size() == 1 && !layout_.expand;
  for (const GenPCall& c : apply_steps_[0].calls)
    direct_calls_ = direct_calls_ && !c.inverse && c.results.size() == 1 && c.results[0].size() == 1 && c.results[0][0].target == 0;
  direct_inv_calls_ = !layout_.injective && inv_steps_.size() == 1 && inv_steps_[0].outputs == rank();
  if (direct_inv_calls_)
    for (const GenPCall& c : inv_steps_[0].calls)
      for (const auto& r : c.results)
        direct_inv_calls_ = direct_inv_calls_ && c.inverse && r.size() <= 1 && (r.empty() || r[0].target < rank());
  for (const auto* steps : {&apply_steps_, &inv_steps_})
    for (const auto& s : *steps)
      if (s.outputs + s.slot_count > kMaxAccumulators) throw LegoError("the layout has too many GenP dimensions in one OrderBy");
}

LayoutClass Plan::classify() const {
  bool quasi = true;
  for (const auto& o : layout_.chain)
    for (const auto& p : o.pieces)
      if (p.genp && !p.genp->quasi_affine()) quasi = false;
  if (!quasi) return LayoutClass::General;
  if (layout_.expand) return LayoutClass::QuasiAffine;
  const bool one_linear_step = apply_steps_.size() == 1 && apply_steps_[0].linear();
  if (one_linear_step) {
    const Step& s = apply_steps_[0];
    int begin = 0;
    for (int end : s.coord_end) {
      if (end - begin > 1) return LayoutClass::QuasiAffine;
      begin = end;
    }
    return LayoutClass::Affine;
  }
  return LayoutClass::QuasiAffine;
}

std::int64_t Plan::apply(const std::int64_t* idx) const {
  std::array<std::int64_t, kMaxAccumulators> res;
  run_steps(apply_steps_, idx, res.data());
  return layout_.expand ? narrow(res[0]) : res[0];
}

std::int64_t Plan::narrow(std::int64_t x) const {
  // ExpandBy: keep x only if it lies inside the original box.
  const auto& e = *layout_.expand;
  std::int64_t rest = x, flat = 0, weight = 1;
  for (std::size_t k = e.expanded.size(); k-- > 0;) {
    const std::int64_t c = rest % e.expanded[k];
    rest /= e.expanded[k];
    if (c >= e.original[k]) return -1;
    flat += c * weight;
    weight *= e.original[k];
  }
  return flat;
}

void Plan::inv(std::int64_t x, std::int64_t* idx) const {
  std::array<std::int64_t, kMaxAccumulators> res;
  run_steps(inv_steps_, &x, res.data());
  std::copy(res.begin(), res.begin() + static_cast<std::ptrdiff_t>(layout_.shape.size()), idx);
}

std::int64_t Plan::apply_checked(const std::vector<std::int64_t>& idx) const {
  if (idx.size() != layout_.shape.size())
    throw LegoError("the layout takes " + std::to_string(layout_.shape.size()) + " indices (shape " + shape_text(layout_.shape) +
                    "), got " + std::to_string(idx.size()));
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (idx[k] < 0 || idx[k] >= layout_.shape[k])
      throw LegoError("index " + std::to_string(k) + " is " + std::to_string(idx[k]) + ", outside [0, " + std::to_string(layout_.shape[k]) +
                      ")");
  return apply(idx.data());
}

std::vector<std::int64_t> Plan::inv_checked(std::int64_t x) const {
  if (!has_inverse()) throw LegoError("this layout is apply-only (its GenP has no inverse); inv is not defined");
  if (x < 0 || x >= physical_size())
    throw LegoError("physical index " + std::to_string(x) + " is outside [0, " + std::to_string(physical_size()) + ")");
  std::vector<std::int64_t> idx(layout_.shape.size());
  inv(x, idx.data());
  return idx;
}

namespace {

// Visits every input of `s` in row-major order, handing `emit` the step's
// accumulators. Sub-digit contributions are additive, so the walk is an
// odometer over all sub-digits (each coordinate's most significant first)
// that updates one accumulator per increment instead of re-deriving digits.
template <class Emit>
void walk_inputs(const Step& s, Emit&& emit) {
  std::vector<const SubDigit*> order;
  std::size_t begin = 0;
  for (int end : s.coord_end) {
    for (std::size_t t = static_cast<std::size_t>(end); t-- > begin;) order.push_back(&s.digits[t]);
    begin = static_cast<std::size_t>(end);
  }
  std::array<std::int64_t, kMaxAccumulators> acc{};
  if (order.empty()) {
    emit(acc.data());
    return;
  }
  std::vector<std::int64_t> value(order.size(), 0);
  const SubDigit inner = *order.back();
  const std::size_t outer = order.size() - 1;
  for (;;) {
    for (std::int64_t v = 0; v < inner.radix; ++v) {
      emit(acc.data());
      acc[inner.target] += inner.mult;
    }
    acc[inner.target] -= inner.radix * inner.mult;
    std::size_t d = outer;
    for (;;) {
      if (d == 0) return;
      --d;
      const SubDigit& sd = *order[d];
      if (++value[d] < sd.radix) {
        acc[sd.target] += sd.mult;
        break;
      }
      value[d] = 0;
      acc[sd.target] -= (sd.radix - 1) * sd.mult;
    }
  }
}

}  // namespace

void Plan::apply_all(std::int64_t* out) const {
  const Step& first = apply_steps_[0];
  if (first.calls.empty() && apply_steps_.size() == 1 && !layout_.expand) {  // one add per element
    walk_inputs(first, [&](const std::int64_t* acc) { *out++ = acc[0]; });
    return;
  }
  if (direct_calls_) {  // one step whose GenPs each add one weighted value to the output
    walk_inputs(first, [&](const std::int64_t* acc) {
      std::int64_t x = acc[0];
      for (const GenPCall& c : first.calls) x += c.fn->apply(acc + 1 + c.first_slot) * c.results[0][0].mult;
      *out++ = x;
    });
    return;
  }
  const std::size_t n_acc = static_cast<std::size_t>(first.outputs + first.slot_count);
  std::array<std::int64_t, kMaxAccumulators> work, scratch;
  walk_inputs(first, [&](const std::int64_t* acc) {
    std::copy(acc, acc + n_acc, work.data());
    run_calls(first, work.data());
    std::int64_t x = work[0];
    for (std::size_t k = 1; k < apply_steps_.size(); ++k) {
      const std::int64_t in = x;
      run_step(apply_steps_[k], &in, scratch.data());
      finish_step(apply_steps_[k], scratch.data(), &x);
    }
    *out++ = layout_.expand ? narrow(x) : x;
  });
}

void Plan::inv_all(std::int64_t* out) const {
  const Step& first = inv_steps_[0];
  const std::size_t r = layout_.shape.size();
  const std::size_t n_acc = static_cast<std::size_t>(first.outputs + first.slot_count);
  if (first.calls.empty() && inv_steps_.size() == 1) {  // coordinates straight from the walk
    walk_inputs(first, [&](const std::int64_t* acc) {
      std::copy(acc, acc + r, out);
      out += r;
    });
    return;
  }
  if (direct_inv_calls_) {  // one step whose GenP inverses each write coordinates directly
    std::array<std::int64_t, kMaxAccumulators> values;
    walk_inputs(first, [&](const std::int64_t* acc) {
      std::copy(acc, acc + r, out);
      for (const GenPCall& c : first.calls) {
        c.fn->inv(acc[r + static_cast<std::size_t>(c.first_slot)], values.data());
        for (std::size_t m = 0; m < c.results.size(); ++m)
          if (!c.results[m].empty()) out[c.results[m][0].target] += values[m] * c.results[m][0].mult;
      }
      out += r;
    });
    return;
  }
  std::array<std::int64_t, kMaxAccumulators> work, scratch;
  walk_inputs(first, [&](const std::int64_t* acc) {
    std::copy(acc, acc + n_acc, work.data());
    run_calls(first, work.data());
    for (std::size_t k = 1; k < inv_steps_.size(); ++k) {
      const std::int64_t x = work[0];
      run_step(inv_steps_[k], &x, scratch.data());
      finish_step(inv_steps_[k], scratch.data(), work.data());
    }
    std::copy(work.data(), work.data() + r, out);
    out += r;
  });
}

std::string Plan::describe() const {
  std::string s;
  auto dump = [&](const char* title, const std::vector<Step>& steps) {
    s += title;
    s += ": " + std::to_string(steps.size()) + " step(s)\n";
    for (const auto& st : steps) {
      s += "  step:";
      std::size_t begin = 0;
      for (std::size_t k = 0; k < st.coord_end.size(); ++k) {
        s += " in" + std::to_string(k) + "{";
        for (std::size_t t = begin; t < static_cast<std::size_t>(st.coord_end[k]); ++t) {
          const auto& d = st.digits[t];
          s += (t > begin ? " " : "") + std::to_string(d.radix) + "->" +
               (d.target < st.outputs ? "out" + std::to_string(d.target) : "slot" + std::to_string(d.target - st.outputs)) + "*" +
               std::to_string(d.mult);
        }
        s += "}";
        begin = static_cast<std::size_t>(st.coord_end[k]);
      }
      for (const auto& c : st.calls) s += c.inverse ? " genp-inv" : " genp-apply";
      s += "\n";
    }
  };
  dump("apply", apply_steps_);
  if (!layout_.injective) dump("inv", inv_steps_);
  return s;
}

}  // namespace lego
