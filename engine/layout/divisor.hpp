// Division by a runtime-invariant positive divisor on non-negative values:
// shift/mask for powers of two, 32-bit division when both operands fit (far
// cheaper than 64-bit division on x86), 64-bit division otherwise.
#pragma once

#include <cstdint>

namespace lego {

class Divisor {
 public:
  Divisor() = default;
  explicit Divisor(std::int64_t d) : d_(d), shift_((d & (d - 1)) == 0 ? __builtin_ctzll(static_cast<unsigned long long>(d)) : -1) {}

  std::int64_t value() const { return d_; }

  // q = x / d, r = x % d for 0 <= x.
  void divmod(std::int64_t x, std::int64_t& q, std::int64_t& r) const {
    if (shift_ >= 0) {
      q = x >> shift_;
      r = x & (d_ - 1);
    } else if (static_cast<std::uint64_t>(x) <= 0xffffffffu && d_ <= 0xffffffff) {
      const auto x32 = static_cast<std::uint32_t>(x), d32 = static_cast<std::uint32_t>(d_);
      q = x32 / d32;
      r = x32 % d32;
    } else {
      q = x / d_;
      r = x % d_;
    }
  }
  std::int64_t div(std::int64_t x) const {
    std::int64_t q, r;
    divmod(x, q, r);
    return q;
  }
  std::int64_t mod(std::int64_t x) const {
    std::int64_t q, r;
    divmod(x, q, r);
    return r;
  }

 private:
  std::int64_t d_ = 1;
  int shift_ = 0;
};

}  // namespace lego
