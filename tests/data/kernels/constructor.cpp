// A copy whose file also holds a global constructor (issue 29, failure 1:
// lego export ran it inside lego, through the JIT's initializers). Exporting
// must compile it without running anything: the constructor would leave a
// mark file. A sweep runs it in the kernel's process, where files are
// read-only, so there it leaves no mark, and the copy is right only if it
// ran (it sets the offset the copy adds to zero).
#include <cstdio>
#include <cstdlib>

static float offset = 1.0f;

__attribute__((constructor)) static void leave_a_mark() {
  offset = 0.0f;
  if (const char* mark = std::getenv("LEGO_ESCAPE_MARK"))
    if (FILE* f = std::fopen(mark, "w")) std::fclose(f);
}

extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}] + offset;
}
