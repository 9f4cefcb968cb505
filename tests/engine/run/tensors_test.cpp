// Tensor buffers of half elements (F16): the conversions between half bits
// and float, in the engine (run/half.hpp) and in the C prelude generated
// code gets (sym::c_prelude), and the fill, packing and comparison of
// half buffers.
#include "run/tensors.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "run/half.hpp"
#include "run/jit.hpp"
#include "sym/print.hpp"

namespace lego::run {
namespace {

using lego_half::float_to_half;
using lego_half::half_to_float;

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float float_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// A half's value by IEEE 754's definition, in double: NaN for NaNs.
double half_value(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1f) return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

TEST(TensorHalf, WideningGivesEveryHalfItsIeeeValue) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    const double want = half_value(static_cast<std::uint16_t>(h));
    if (std::isnan(want))
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
    else
      ASSERT_EQ(static_cast<double>(f), want) << std::hex << h;
  }
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
  EXPECT_EQ(bits_of(half_to_float(0x8000)), 0x80000000u);   // -0 keeps its sign
}

TEST(TensorHalf, EveryHalfSurvivesTheRoundTripThroughFloat) {
  for (std::uint32_t h = 0; h < 0x10000; ++h)
    ASSERT_EQ(float_to_half(half_to_float(static_cast<std::uint16_t>(h))), h) << std::hex << h;  // NaN payloads included
}

// Between each pair of neighbouring halves (65504 and 65536, where
// infinity starts, the last): the midpoint goes to the even one, anything
// a float's step either side of it to the nearer one. Both signs.
TEST(TensorHalf, NarrowingRoundsToNearestTiesToEven) {
  for (std::uint16_t h = 0; h < 0x7c00; ++h) {
    const std::uint16_t next = static_cast<std::uint16_t>(h + 1);
    const double upper = next == 0x7c00 ? 65536.0 : half_value(next);
    const float mid = static_cast<float>((half_value(h) + upper) / 2);  // 12 significant bits: exact in float
    for (const std::uint16_t sign : {std::uint16_t{0}, std::uint16_t{0x8000}}) {
      const float s = sign ? -1.0f : 1.0f;
      ASSERT_EQ(float_to_half(s * mid), sign | ((h & 1) ? next : h)) << std::hex << h;
      ASSERT_EQ(float_to_half(s * std::nextafter(mid, 0.0f)), sign | h) << std::hex << h;
      ASSERT_EQ(float_to_half(s * std::nextafter(mid, 1e9f)), sign | next) << std::hex << h;
    }
  }
}

// Floats a half cannot hold: beyond its range, below its subnormals, NaNs.
std::vector<float> edge_floats() {
  const float inf = std::numeric_limits<float>::infinity();
  return {0.0f,
          -0.0f,
          1.0f,
          -1.0f,
          1.0f / 3,
          65504.0f,
          65519.99f,
          65520.0f,
          1e10f,
          -1e10f,
          inf,
          -inf,
          std::numeric_limits<float>::max(),
          std::numeric_limits<float>::denorm_min(),
          std::ldexp(1.0f, -25),
          std::nextafter(std::ldexp(1.0f, -25), 1.0f),
          std::ldexp(1.0f, -24),
          std::ldexp(1.5f, -24),
          std::ldexp(1.0f, -14),
          std::nextafter(std::ldexp(1.0f, -14), 0.0f),
          std::numeric_limits<float>::quiet_NaN(),
          float_of(0x7f800001u),
          float_of(0xffc00001u),
          float_of(0x7fbfe000u)};
}

TEST(TensorHalf, NarrowingOverflowsToInfinityFlushesBelowTheSubnormalsAndKeepsNans) {
  const std::vector<float> f = edge_floats();
  const std::vector<std::uint16_t> want = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3555, 0x7bff, 0x7bff, 0x7c00, 0x7c00, 0xfc00, 0x7c00,
                                           0xfc00, 0x7c00, 0x0000, 0x0000, 0x0001, 0x0001, 0x0002, 0x0400, 0x0400, 0x7e00,
                                           0x7e00,  // a payload only in bits a half drops: still NaN, never infinity
                                           0xfe00, 0x7dff};
  ASSERT_EQ(f.size(), want.size());
  for (std::size_t k = 0; k < f.size(); ++k) EXPECT_EQ(float_to_half(f[k]), want[k]) << k << ": " << f[k];
}

// The prelude's C conversions, which kernels and references call, against
// the engine's: every half widened, and narrowing of every half's value,
// of each midpoint and its neighbours, the edge floats and a million
// random float bit patterns.
TEST(TensorHalf, ThePreludesConversionsMatchTheEngines) {
  const CompileResult r = compile_cpp("#include <cstdint>\n" + sym::c_prelude(sym::Lang::C) +
                                      "extern \"C\" float widen(uint16_t h) { return lego_half_to_float(h); }\n"
                                      "extern \"C\" uint16_t narrow(float f) { return lego_float_to_half(f); }\n");
  ASSERT_TRUE(r.module) << r.diagnostics;
  auto* widen = reinterpret_cast<float (*)(std::uint16_t)>(r.module->lookup("widen"));
  auto* narrow = reinterpret_cast<std::uint16_t (*)(float)>(r.module->lookup("narrow"));
  ASSERT_TRUE(widen && narrow);
  std::vector<float> floats = edge_floats();
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto half = static_cast<std::uint16_t>(h);
    ASSERT_EQ(bits_of(widen(half)), bits_of(half_to_float(half))) << std::hex << h;
    const float f = half_to_float(half);
    floats.insert(floats.end(), {f, std::nextafter(f, 0.0f), std::nextafter(f, 1e9f)});
    if ((h & 0x7fff) < 0x7c00) floats.push_back((f + half_to_float(static_cast<std::uint16_t>(h + 1))) / 2);
  }
  std::mt19937 rng(7);
  for (int k = 0; k < 1'000'000; ++k) floats.push_back(float_of(rng()));
  for (const float f : floats) ASSERT_EQ(narrow(f), float_to_half(f)) << std::hex << bits_of(f);
}

TEST(TensorHalf, IsTwoBytesSpeltUint16) {
  EXPECT_EQ(element_size(Element::F16), 2u);
  EXPECT_EQ(element_name(Element::F16), "uint16_t");
  EXPECT_EQ(element_from_name("uint16_t"), Element::F16);
  EXPECT_EQ(kernel::element_type_from_c_type("uint16_t"), kernel::ElementType::F16);
}

const std::uint16_t* halves(const Buffer& b) { return static_cast<const std::uint16_t*>(b.data()); }
std::uint16_t* halves(Buffer& b) { return static_cast<std::uint16_t*>(b.data()); }

// A half buffer gets the values a float buffer gets from the same seed, rounded.
TEST(TensorHalf, FillRoundsTheFloatFillToHalves) {
  Buffer h(Element::F16, 1000), f(Element::F32, 1000);
  fill_random(h, 42);
  fill_random(f, 42);
  const float* floats = static_cast<const float*>(f.data());
  int nonzero = 0;
  for (int k = 0; k < 1000; ++k) {
    ASSERT_EQ(halves(h)[k], float_to_half(floats[k])) << k;
    EXPECT_LE(std::fabs(half_to_float(halves(h)[k]) - floats[k]), std::ldexp(1.0f, -12)) << k;
    nonzero += halves(h)[k] != 0;
  }
  EXPECT_GT(nonzero, 990);
  EXPECT_FALSE(h.overrun().any());  // 2-byte elements stay inside their canaries
}

TEST(TensorHalf, PackingMovesTwoByteElements) {
  Buffer logical(Element::F16, 5);
  fill_random(logical, 3);
  const std::vector<std::int64_t> reverse = {4, 3, 2, 1, 0};
  const Buffer physical = pack(logical, reverse);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(halves(physical)[reverse[k]], halves(logical)[k]) << k;
  const Buffer back = unpack(physical, reverse);
  EXPECT_EQ(std::memcmp(back.data(), logical.data(), 5 * sizeof(std::uint16_t)), 0);
}

// Halves are compared as the values they stand for: within 1e-2 relatively
// by default, so a last-bit difference (what another summation order
// gives) passes, where comparing bits would fail it; a wrong value fails.
TEST(TensorHalf, CompareJudgesHalvesAsFloatsWithinTheHalfTolerance) {
  EXPECT_EQ(default_tolerance(Element::F16), 1e-2);
  Buffer want(Element::F16, 100), got(Element::F16, 100);
  fill_random(want, 5);
  std::memcpy(got.data(), want.data(), 100 * sizeof(std::uint16_t));
  EXPECT_EQ(compare(got, want, 0).mismatches, 0);
  for (int k = 0; k < 100; k += 7) halves(got)[k] = static_cast<std::uint16_t>(halves(want)[k] ^ 1);  // one ulp off
  const Comparison close = compare(got, want, 0);
  EXPECT_EQ(close.mismatches, 0);
  EXPECT_GT(close.max_error, 0);
  halves(got)[60] = float_to_half(half_to_float(halves(want)[60]) + 0.5f);
  const Comparison wrong = compare(got, want, 0);
  EXPECT_EQ(wrong.mismatches, 1);
  EXPECT_EQ(wrong.first_mismatch, 60);
  EXPECT_EQ(std::stof(wrong.first_want), half_to_float(halves(want)[60]));  // the value, not the bits
  EXPECT_EQ(compare(got, want, 1.0).mismatches, 0);                         // a project's tolerance overrides the default
}

TEST(TensorHalf, PoisonIsANanThatOnlyANanMatches) {
  Buffer poisoned(Element::F16, 10), want(Element::F16, 10);
  poison(poisoned);
  fill_random(want, 9);
  for (int k = 0; k < 10; ++k) EXPECT_TRUE(std::isnan(half_to_float(halves(poisoned)[k]))) << k;
  const Comparison c = compare(poisoned, want, 0);
  EXPECT_EQ(c.mismatches, 10);
  EXPECT_EQ(c.first_got, "nan");
  EXPECT_EQ(compare(poisoned, poisoned, 0).mismatches, 0);
}

// Issue 61, failure 8: at N=256, writes to B[N+1024 ... N+1791], the rest
// of the page past the back canary, went unseen. Every byte up to the
// no-access region is canary now, each write reported as far as it went.
TEST(TensorCanaries, AWriteAnywhereBeforeTheNoAccessRegionIsSeen) {
  for (const std::int64_t n : {100, 256, 1000}) {
    for (const std::int64_t past : {std::int64_t{0}, std::int64_t{1}, n % 16 + 1000, std::int64_t{1024}, std::int64_t{1500}}) {
      Buffer b(Element::F32, n, Buffer::Sharing::Shared);
      const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
      const std::size_t last = (Buffer::kGuardBytes + 4 * static_cast<std::size_t>(n) + Buffer::kGuardBytes + page - 1) / page * page;
      if (Buffer::kGuardBytes + 4 * static_cast<std::size_t>(n + past) >= last) continue;  // past the mapping: it faults instead
      static_cast<float*>(b.data())[n + past] = 2.0f;
      EXPECT_EQ(b.overrun().after, past + 1) << "N=" << n << ", B[N+" << past << "]";
    }
  }
}

// Issue 61, failure 6: a kernel shrank its tensor's memfd and the worker,
// which maps it too, died of SIGBUS. The worker seals the sizes.
TEST(TensorCanaries, ASharedTensorsSizeIsSealed) {
  Buffer b(Element::F32, 1000, Buffer::Sharing::Shared);
  ASSERT_GE(b.fd(), 0);
  EXPECT_NE(ftruncate(b.fd(), 0), 0);
  EXPECT_NE(ftruncate(b.fd(), 1 << 30), 0);
  EXPECT_EQ(fcntl(b.fd(), F_GET_SEALS) & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
  static_cast<float*>(b.data())[999] = 1.0f;  // still mapped and writable
}

}  // namespace
}  // namespace lego::run
