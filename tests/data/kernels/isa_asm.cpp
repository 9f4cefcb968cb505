// B = A + 1 through a 64-byte vector pinned to one register by inline asm
// ("+v"): without AVX-512 no register holds it, and LLVM reports an error
// while generating code.
#include <cstring>

typedef float v16 __attribute__((vector_size(64)));

extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; i += 16) {
    v16 v;
    std::memcpy(&v, &A[i], sizeof v);
    __asm__("" : "+v"(v));
    v += 1.0f;
    std::memcpy(&B[i], &v, sizeof v);
  }
}
