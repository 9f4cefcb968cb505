// A bound layout compiled once into a flat evaluation plan, so apply/inv do
// not walk a tree per index.
//
// A plan is a short list of steps. A step reads its input coordinates as
// mixed-radix sub-digits; each sub-digit is added, times a multiplier, to an
// output or to an argument slot of a GenP call. One OrderBy is one step; the
// compiler then fuses adjacent steps whenever the radices of both refine into
// a common divisor chain (the condition under which CuTe composes layouts).
// A tiled Row/Col layout thus becomes one multiply-add per coordinate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layout/bound.hpp"

namespace lego {

// Logical dimensions a plan supports (one accumulator each, plus one).
constexpr int kMaxLayoutRank = 127;

struct SubDigit {
  std::int64_t radix;
  std::int64_t mult;
  int target;  // < outputs: an output; else slot (target - outputs)
  int shift;   // log2(radix) when the radix is a power of two, else -1
};

// A GenP evaluated inside a step. Its result values (apply: one; inv: one per
// dimension) are scattered like inputs: as sub-digits into outputs or into
// the slots of later calls.
struct GenPCall {
  const GenPFunction* fn;
  bool inverse;
  int first_slot;                              // apply: dims().size() slots; inv: one slot
  std::vector<std::vector<SubDigit>> results;  // per result value, least significant first
};

struct Step {
  std::vector<SubDigit> digits;  // per input coordinate, least significant first
  std::vector<int> coord_end;    // digits of coordinate k end at coord_end[k]
  int outputs = 1;
  int slot_count = 0;  // not "slots": Qt defines that word
  std::vector<GenPCall> calls;
  bool linear() const { return calls.empty() && slot_count == 0; }
};

enum class LayoutClass { Affine, QuasiAffine, General };
const char* to_string(LayoutClass c);

class Plan {
 public:
  explicit Plan(BoundLayout layout);

  const BoundLayout& layout() const { return layout_; }
  int rank() const { return static_cast<int>(layout_.shape.size()); }
  const std::vector<std::int64_t>& shape() const { return layout_.shape; }
  std::int64_t size() const { return layout_.size; }
  std::int64_t physical_size() const { return layout_.physical_size(); }
  bool has_inverse() const { return !layout_.injective; }
  LayoutClass classify() const;

  // Unchecked: idx must be in range. Returns -1 where ExpandBy drops the
  // element (outside the original box).
  std::int64_t apply(const std::int64_t* idx) const;
  // Unchecked: 0 <= x < physical_size(), has_inverse().
  void inv(std::int64_t x, std::int64_t* idx) const;

  // Checked versions for user input: throw LegoError on a wrong rank or an
  // index out of range, or on inv of an apply-only layout.
  std::int64_t apply_checked(const std::vector<std::int64_t>& idx) const;
  std::vector<std::int64_t> inv_checked(std::int64_t x) const;

  // apply of every logical index in row-major order (size() entries), and
  // inv of every physical position (physical_size() * rank() entries).
  void apply_all(std::int64_t* out) const;
  void inv_all(std::int64_t* out) const;

  const std::vector<Step>& apply_steps() const { return apply_steps_; }
  const std::vector<Step>& inv_steps() const { return inv_steps_; }
  std::string describe() const;

 private:
  std::int64_t narrow(std::int64_t expanded_flat) const;  // ExpandBy; -1 outside
  BoundLayout layout_;
  std::vector<Step> apply_steps_;
  std::vector<Step> inv_steps_;
  bool direct_calls_ = false;      // apply_all fast path, see plan.cpp
  bool direct_inv_calls_ = false;  // inv_all fast path
};

// Composes `first` (one output) with `second` (one input): second's digit
// extraction is folded into where first's sub-digits and GenP results go.
// False when their radices do not refine into a common divisor chain.
bool compose(const Step& first, const Step& second, Step& out);

}  // namespace lego
