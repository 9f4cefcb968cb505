// C = A * B, fp32, the way BLAS libraries do it (Goto's algorithm). A and B
// are read through their data layouts once per block, while they are packed
// into panels; all the arithmetic reads the panels. The panels' layouts are
// layouts of the sweep too: AP stores one BM x KC panel of A, BP one KC x BN
// panel of B. BP contiguous along j gives the register tile whole vector
// loads; AP matters less, for its panel stays in L1 (on a Sapphire Rapids
// AP=rows and AP=kmajor ran within 2 % of each other). Packing is part of
// the measured time.
//
// Blocking, as BLIS runs a row-major C (its C^T = B^T A^T): an MC x KC block
// of A is packed once, shared by the threads (L3); a KC x NC block of B is
// packed next, also shared, and each thread then holds it in its L2 while it
// runs its share of A's BM-row panels across it: one A panel stays in L1 and
// B's KC x BN panels stream through from L2. A is packed once per KC block,
// B once per KC block and MC block of rows (once where MC >= M, as in the
// example project). The order matters: with B's block in L3 and A's
// panels streaming past one B panel (the layout before), a Sapphire Rapids
// core ran 0.84 of OpenBLAS side by side at 2048^3 fp32; this order, 0.98.
// Blocks larger than the matrix shrink to it. M need not be a multiple of
// BM: the last panel of A is packed with zero rows and its extra rows of C
// are not stored, so the 6 x 16 tile that fits AVX2's 16 registers works for
// any M, as BLIS's edge cases do.
//
// Each pack reads its source along the dimension the source's layout stores
// contiguously (whether A's next element along k, and B's along j, is the
// next position: the layouts' index expressions at two neighbours, which
// the compiler folds): B's panels packed one 32-column panel at a time, down
// a row-major B's columns (a new line and page for every 32 floats), took
// 6 % of a 2048^3 run on one core, twice the time of packing B's rows whole.
// Not A.run(1): the cost model reads a run a template asks for as a vector
// load, and priced column-major inputs 64 times slower.
//
// The register tile is written with vector types of the target's width
// (GCC's vector extension, also understood by clang) so GCC 12 and Clang 15
// keep the BM x BN/lanes accumulators in registers (Clang 14 spills them);
// the engine rules out tiles
// that do not fit the target's register file (the project's register_tile).
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

constexpr int kLanes = {{ VECTOR_BYTES // 4 }};
typedef float lego_vf __attribute__((vector_size({{ VECTOR_BYTES }})));

// kLanes floats `stride` apart: one vector load when the stride is 1 (a
// constant the engine checked: BP.stride(1) below), a gather otherwise.
static inline lego_vf loadv(const float* p, int64_t stride) {
  lego_vf v;
  if (stride == 1) {
    std::memcpy(&v, p, sizeof v);
  } else {
    for (int l = 0; l < kLanes; ++l) v[l] = p[l * stride];
  }
  return v;
}

static inline void storev(float* p, int64_t stride, lego_vf v) {
  if (stride == 1) {
    std::memcpy(p, &v, sizeof v);
  } else {
    for (int l = 0; l < kLanes; ++l) p[l * stride] = v[l];
  }
}

// An empty asm that claims to change v: gcc would otherwise fold the B loads
// into the FMAs as memory operands and load each B vector BM times per k.
// The constraint names a register class that holds the whole vector; where
// the compiler's target has none that wide, nothing is pinned.
static inline void keep_in_register(lego_vf& v) {
#if defined(__x86_64__) && defined(__AVX512F__)
  __asm__("" : "+v"(v));
#elif defined(__x86_64__) && (defined(__AVX__) || {{ VECTOR_BYTES }} <= 16)
  if constexpr (sizeof(lego_vf) <= 32) __asm__("" : "+x"(v));
#elif defined(__aarch64__)
  if constexpr (sizeof(lego_vf) <= 16) __asm__("" : "+w"(v));
#else
  (void)v;
#endif
}

// Blocks, shrunk to the matrix; an A block holds whole panels of BM rows.
constexpr int64_t kMC = (({{ M }} < {{ MC }} ? {{ M }} : {{ MC }}) + {{ BM }} - 1) / {{ BM }} * {{ BM }};
constexpr int64_t kNC = {{ N }} < {{ NC }} ? {{ N }} : {{ NC }};
constexpr int64_t kKC = {{ K }} < {{ KC }} ? {{ K }} : {{ KC }};
constexpr int64_t kVectors = {{ BN }} / kLanes;
static_assert({{ BN }} % kLanes == 0, "BN is a whole number of vectors");
static_assert(kKC == {{ KC }} || kKC == {{ K }}, "AP and BP are KC deep");

// The packed panels, A's and then B's, each on a 64-byte boundary.
constexpr int64_t kBpOffset = (kMC * kKC + 15) / 16 * 16;
constexpr int64_t kPanelFloats = kBpOffset + kKC * kNC;

// The panels' memory is kept from one call to the next, as BLIS keeps its
// packing blocks in a pool. Allocated and freed per call, it came from
// mmap whenever malloc chose to give it back to the system, and then every
// call faulted its pages in again: an x86-64-v3 export of the 512^3 matmul
// built with g++ ran 5.2 ms a call on a Zen 5, 235 page faults a call,
// where the JIT's build (whose heap happened to stay) ran 3.0. One buffer
// is kept; a call made while another holds it (two threads calling the
// kernel at once) allocates its own and frees it.
static std::atomic<float*> kept_panels{nullptr};

static float* take_panels() {
  if (float* p = kept_panels.exchange(nullptr)) return p;
  // aligned_alloc takes a whole number of alignments.
  void* p = std::aligned_alloc(64, (sizeof(float) * kPanelFloats + 63) / 64 * 64);
  if (!p) std::abort();  // no memory for the panels: a crash the worker reports, not a wrong C
  return static_cast<float*>(p);
}

static void give_back_panels(float* p) {
  float* none = nullptr;
  if (!kept_panels.compare_exchange_strong(none, p)) std::free(p);
}

extern "C" void lego_kernel(const float* A, const float* B, float* C) {
  float* const Ap = take_panels();
  float* const Bp = Ap + kBpOffset;
  const int64_t b_stride = {{ BP.stride(1) }}, c_stride = {{ C.stride(1) }};
  // Whether A's rows (along k) and B's rows (along j) start with neighbours
  // at consecutive positions: then the packs read them so.
  const int64_t zero = 0, one = 1;
  const bool a_rows_run = {{ A[zero, one] }} - {{ A[zero, zero] }} == 1;
  const bool b_rows_run = {{ B[zero, one] }} - {{ B[zero, zero] }} == 1;
#pragma omp parallel
  for (int64_t ic = 0; ic < {{ M }}; ic += kMC) {
    const int64_t rows = {{ M }} - ic < kMC ? {{ M }} - ic : kMC;
    const int64_t panels = (rows + {{ BM }} - 1) / {{ BM }};
    for (int64_t pc = 0; pc < {{ K }}; pc += kKC) {
      // Each thread packs the panels of A it runs below (the same static
      // split of the same count), so they are in its own caches. Both
      // orders are written out, here and for B: with the element's copy in
      // a lambda, GCC 12's build of the export ran 3x slower.
#pragma omp for schedule(static)
      for (int64_t t = 0; t < panels; ++t) {
        float* ap = Ap + t * {{ BM }} * kKC;
        if (a_rows_run) {
          for (int64_t ii = 0; ii < {{ BM }}; ++ii) {
            const int64_t i = ic + t * {{ BM }} + ii;
            for (int64_t kk = 0; kk < kKC; ++kk) {
              const int64_t k = pc + kk;
              ap[{{ AP[ii, kk] }}] = i < {{ M }} ? A[{{ A[i, k] }}] : 0.0f;
            }
          }
        } else {
          for (int64_t kk = 0; kk < kKC; ++kk)
            for (int64_t ii = 0; ii < {{ BM }}; ++ii) {
              const int64_t i = ic + t * {{ BM }} + ii, k = pc + kk;
              ap[{{ AP[ii, kk] }}] = i < {{ M }} ? A[{{ A[i, k] }}] : 0.0f;
            }
        }
      }
      for (int64_t jc = 0; jc < {{ N }}; jc += kNC) {
        // The last block of columns may be narrower (N = 1280 in blocks of
        // 512); it is still whole tiles, for BN divides N and NC.
        const int64_t nc = {{ N }} - jc < kNC ? {{ N }} - jc : kNC;
        if (b_rows_run) {
#pragma omp for schedule(static)
          for (int64_t kk = 0; kk < kKC; ++kk)
            for (int64_t t = 0; t < nc / {{ BN }}; ++t)
              for (int64_t jj = 0; jj < {{ BN }}; ++jj) {
                const int64_t k = pc + kk, j = jc + t * {{ BN }} + jj;
                Bp[t * kKC * {{ BN }} + {{ BP[kk, jj] }}] = B[{{ B[k, j] }}];
              }
        } else {
#pragma omp for schedule(static)
          for (int64_t t = 0; t < nc / {{ BN }}; ++t)
            for (int64_t jj = 0; jj < {{ BN }}; ++jj)
              for (int64_t kk = 0; kk < kKC; ++kk) {
                const int64_t k = pc + kk, j = jc + t * {{ BN }} + jj;
                Bp[t * kKC * {{ BN }} + {{ BP[kk, jj] }}] = B[{{ B[k, j] }}];
              }
        }
#pragma omp for schedule(static)
        for (int64_t ir = 0; ir < panels; ++ir)
          for (int64_t jr = 0; jr < nc / {{ BN }}; ++jr) {
            const float* a = Ap + ir * {{ BM }} * kKC;
            const float* b = Bp + jr * kKC * {{ BN }};
            lego_vf acc[{{ BM }}][kVectors] = {};
            // The C tile's rows, asked for now and added KC steps later:
            // C is updated once per KC block, from memory, and without
            // this each update waited for its lines (an x86-64-v3 harness
            // of the exported 6 x 16 tile beside BLIS in one process, nine
            // rounds: 0.82-0.85 of BLIS without, 0.88-0.92 with).
            // Row-major C only: a strided C's vectors span a line per lane.
            for (int64_t ii = 0; ii < (c_stride == 1 ? {{ BM }} : 0); ++ii)
              for (int v = 0; v < kVectors; ++v) {
                const int64_t i = ic + ir * {{ BM }} + ii < {{ M }} ? ic + ir * {{ BM }} + ii : {{ M }} - 1;
                const int64_t j = jc + jr * {{ BN }} + kLanes * v;
                __builtin_prefetch(&C[{{ C[i, j] }}], 1, 3);
              }
            for (int64_t kk = 0; kk < kKC; ++kk) {
              lego_vf bv[kVectors];
#pragma GCC unroll 16
              for (int v = 0; v < kVectors; ++v) {
                const int64_t jj = kLanes * v;
                bv[v] = loadv(b + {{ BP[kk, jj] }}, b_stride);
                keep_in_register(bv[v]);
              }
#pragma GCC unroll 32
              for (int64_t ii = 0; ii < {{ BM }}; ++ii) {
                const float av = a[{{ AP[ii, kk] }}];
#pragma GCC unroll 16
                for (int v = 0; v < kVectors; ++v) acc[ii][v] += av * bv[v];
              }
            }
            const int64_t valid = rows - ir * {{ BM }} < {{ BM }} ? rows - ir * {{ BM }} : {{ BM }};
            for (int64_t ii = 0; ii < valid; ++ii)
              for (int v = 0; v < kVectors; ++v) {
                const int64_t i = ic + ir * {{ BM }} + ii, j = jc + jr * {{ BN }} + kLanes * v;
                float* c = &C[{{ C[i, j] }}];
                lego_vf sum = acc[ii][v];
                if (pc != 0) sum += loadv(c, c_stride);
                storev(c, c_stride, sum);
              }
          }
      }
    }
  }
  give_back_panels(Ap);
}
