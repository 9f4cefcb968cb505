// C = A * B, fp32, the way BLAS libraries do it (Goto's algorithm). A and B
// are read through their data layouts once per block, while they are packed
// into panels; all the arithmetic reads the panels. The panels' layouts are
// layouts of the sweep too: AP stores one BM x KC panel of A, BP one KC x BN
// panel of B, and the best choice is the one the register tile reads in
// order (BP contiguous along j for vector loads, AP contiguous along i for
// the BM broadcasts of one k). Packing is part of the measured time.
//
// Blocking: an NC x KC block of B is packed once and shared by the threads
// (it stays in L2/L3); each thread packs MC x KC blocks of A (L2) and runs
// the BM x BN register tile over them, KC multiply-adds deep (one B panel in
// L1). Blocks larger than the matrix shrink to it.
//
// The register tile is written with vector types (GCC's vector extension,
// also understood by clang) so both compilers keep the BM x BN/16
// accumulators in registers; BN is a multiple of 16 floats.
#include <cstdint>
#include <cstdlib>
#include <cstring>

typedef float lego_f32x16 __attribute__((vector_size(64)));

// 16 floats `stride` apart: one vector load when the stride is 1 (a constant
// once the layout is derived), a gather otherwise.
static inline lego_f32x16 load16(const float* p, int64_t stride) {
  lego_f32x16 v;
  if (stride == 1) {
    std::memcpy(&v, p, sizeof v);
  } else {
    for (int l = 0; l < 16; ++l) v[l] = p[l * stride];
  }
  return v;
}

static inline void store16(float* p, int64_t stride, lego_f32x16 v) {
  if (stride == 1) {
    std::memcpy(p, &v, sizeof v);
  } else {
    for (int l = 0; l < 16; ++l) p[l * stride] = v[l];
  }
}

// An empty asm that claims to change v: gcc would otherwise fold the B loads
// into the FMAs as memory operands and load each B vector BM times per k.
static inline void keep_in_register(lego_f32x16& v) {
#if defined(__x86_64__)
  __asm__("" : "+v"(v));
#else
  (void)v;
#endif
}

constexpr int64_t kMC = {{ M }} < {{ MC }} ? {{ M }} : {{ MC }};
constexpr int64_t kNC = {{ N }} < {{ NC }} ? {{ N }} : {{ NC }};
constexpr int64_t kKC = {{ K }} < {{ KC }} ? {{ K }} : {{ KC }};
static_assert(kKC == {{ KC }} || kKC == {{ K }}, "AP and BP are KC deep");

extern "C" void lego_kernel(const float* A, const float* B, float* C) {
  float* Bp = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * kKC * kNC));
#pragma omp parallel
  {
    float* Ap = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * kMC * kKC));
    for (int64_t jc = 0; jc < {{ N }}; jc += kNC)
      for (int64_t pc = 0; pc < {{ K }}; pc += kKC) {
#pragma omp for schedule(static)
        for (int64_t t = 0; t < kNC / {{ BN }}; ++t)
          for (int64_t kk = 0; kk < kKC; ++kk)
            for (int64_t jj = 0; jj < {{ BN }}; ++jj) {
              const int64_t k = pc + kk, j = jc + t * {{ BN }} + jj;
              Bp[t * kKC * {{ BN }} + {{ BP[kk, jj] }}] = B[{{ B[k, j] }}];
            }
#pragma omp for schedule(static)
        for (int64_t ic = 0; ic < {{ M }}; ic += kMC) {
          for (int64_t t = 0; t < kMC / {{ BM }}; ++t)
            for (int64_t kk = 0; kk < kKC; ++kk)
              for (int64_t ii = 0; ii < {{ BM }}; ++ii) {
                const int64_t i = ic + t * {{ BM }} + ii, k = pc + kk;
                Ap[t * {{ BM }} * kKC + {{ AP[ii, kk] }}] = A[{{ A[i, k] }}];
              }
          for (int64_t jr = 0; jr < kNC / {{ BN }}; ++jr)
            for (int64_t ir = 0; ir < kMC / {{ BM }}; ++ir) {
              const float* a = Ap + ir * {{ BM }} * kKC;
              const float* b = Bp + jr * kKC * {{ BN }};
              const int64_t zero = 0, one = 1;
              const int64_t b_stride = {{ BP[zero, one] }} - {{ BP[zero, zero] }};
              lego_f32x16 acc[{{ BM }}][{{ BN // 16 }}] = {};
              for (int64_t kk = 0; kk < kKC; ++kk) {
                lego_f32x16 bv[{{ BN // 16 }}];
#pragma GCC unroll 16
                for (int v = 0; v < {{ BN // 16 }}; ++v) {
                  const int64_t jj = 16 * v;
                  bv[v] = load16(b + {{ BP[kk, jj] }}, b_stride);
                  keep_in_register(bv[v]);
                }
#pragma GCC unroll 32
                for (int64_t ii = 0; ii < {{ BM }}; ++ii) {
                  const float av = a[{{ AP[ii, kk] }}];
#pragma GCC unroll 16
                  for (int v = 0; v < {{ BN // 16 }}; ++v) acc[ii][v] += av * bv[v];
                }
              }
              for (int64_t ii = 0; ii < {{ BM }}; ++ii)
                for (int v = 0; v < {{ BN // 16 }}; ++v) {
                  const int64_t i = ic + ir * {{ BM }} + ii, j = jc + jr * {{ BN }} + 16 * v, j1 = j + 1;
                  float* c = &C[{{ C[i, j] }}];
                  const int64_t c_stride = {{ C[i, j1] }} - {{ C[i, j] }};
                  lego_f32x16 sum = acc[ii][v];
                  if (pc != 0) sum += load16(c, c_stride);
                  store16(c, c_stride, sum);
                }
            }
        }
      }
    std::free(Ap);
  }
  std::free(Bp);
}
