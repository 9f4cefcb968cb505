// IEEE binary16 ("half", the F16 element type) as raw bits, converted to
// and from float exactly as the hardware does for finite values: widening
// is exact, narrowing rounds to nearest, ties to even, overflows to
// infinity and keeps subnormals. A NaN stays a NaN with its payload's top
// bits (one whose kept bits would all be 0 becomes the quiet NaN), so every
// half survives half -> float -> half unchanged.
// Standard C++17 only: the bench bundles carry this text (with
// run/element_check.hpp), so their hosts fill and judge halves as the
// worker does. Generated kernels get the same two conversions in C
// (lego_half_to_float, lego_float_to_half: sym/print.cpp's c_prelude).
#pragma once

#include <cstdint>
#include <cstring>

namespace lego_half {

inline float bits_to_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline std::uint32_t float_to_bits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_to_float(sign | 0x7f800000u | (mantissa << 13));  // infinity, NaN
  if (exponent != 0) return bits_to_float(sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_to_float(sign);  // +-0
  // A subnormal, m * 2^-24: normalized, it is a normal float.
  exponent = 127 - 14;
  while (!(mantissa & 0x400u)) {
    mantissa <<= 1;
    --exponent;
  }
  return bits_to_float(sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13));
}

// `value` >> `shift`, rounded to nearest, ties to even.
inline std::uint32_t shift_right_rounded(std::uint32_t value, int shift) {
  const std::uint32_t kept = value >> shift, dropped = value & ((1u << shift) - 1), half_way = 1u << (shift - 1);
  return kept + (dropped > half_way || (dropped == half_way && (kept & 1u)));
}

inline std::uint16_t float_to_half(float f) {
  const std::uint32_t bits = float_to_bits(f);
  const std::uint32_t sign = (bits >> 16) & 0x8000u, exponent = (bits >> 23) & 0xffu, mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) {
    const std::uint32_t payload = mantissa >> 13;
    return std::uint16_t(sign | 0x7c00u | (mantissa == 0 ? 0 : payload != 0 ? payload : 0x200u));
  }
  const int half_exponent = int(exponent) - 127 + 15;
  if (half_exponent >= 31) return std::uint16_t(sign | 0x7c00u);  // beyond 65504: infinity
  if (half_exponent <= 0) {
    // A half subnormal (or 0), in units of 2^-24. Below 2^-25 (the float
    // subnormals too) everything rounds to 0; a carry makes the smallest normal.
    if (half_exponent < -10) return std::uint16_t(sign);
    return std::uint16_t(sign | shift_right_rounded(mantissa | 0x800000u, 14 - half_exponent));
  }
  // A carry out of the mantissa raises the exponent, up to infinity: still exact.
  return std::uint16_t(sign | shift_right_rounded((std::uint32_t(half_exponent) << 23) | mantissa, 13));
}

}  // namespace lego_half
