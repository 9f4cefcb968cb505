// A copy whose file also holds a global constructor that leaves a mark
// (issue 29, failure 1: lego export ran it inside lego, through the JIT's
// initializers). Exporting must compile it without running anything.
#include <cstdio>
#include <cstdlib>

__attribute__((constructor)) static void leave_a_mark() {
  if (const char* mark = std::getenv("LEGO_ESCAPE_MARK"))
    if (FILE* f = std::fopen(mark, "w")) std::fclose(f);
}

extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];
}
