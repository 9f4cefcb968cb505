// Baseline: BLIS's sgemm through its typed API (bli_sgemm: general strides,
// so row-major needs no transposition), the call a user would make instead
// of generating a kernel. Declared here rather than through blis.h, whose
// folder depends on the Debian flavour installed; the types are BLIS's
// (dim_t and inc_t are int64_t, trans_t an enum where 0 is no transpose).
// BLIS runs one thread unless told (it does not read OMP_NUM_THREADS), so
// it is given as many as the variants use.
#include <omp.h>

#include <cstdint>

extern "C" void bli_thread_set_num_threads(int64_t threads);
extern "C" void bli_sgemm(int transa, int transb, int64_t m, int64_t n, int64_t k, float* alpha, float* a, int64_t rsa, int64_t csa,
                          float* b, int64_t rsb, int64_t csb, float* beta, float* c, int64_t rsc, int64_t csc);

extern "C" void lego_kernel(const float* A, const float* B, float* C) {
  bli_thread_set_num_threads(omp_get_max_threads());
  float one = 1.0f, zero = 0.0f;
  bli_sgemm(0, 0, M, N, K, &one, const_cast<float*>(A), K, 1, const_cast<float*>(B), N, 1, &zero, C, N, 1);
}
