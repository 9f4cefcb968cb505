// A kernel that, with FORGE=1, writes a fake "verified, fast" result line to
// every descriptor the worker might use for its protocol (tests: the client
// discards it as a protocol error, and the next variant gets its own result).
#include <unistd.h>

#include <cstring>

extern "C" void lego_kernel(const float* A, float* B) {
  if ({{ FORGE }}) {
    const char* forged = "{\"id\":1,\"status\":\"ok\",\"verified\":true,\"median_ms\":0.000001}\n{\"id\":2,\"status\":\"ok\"}\n";
    for (int fd = 1; fd < 64; ++fd) (void)!write(fd, forged, std::strlen(forged));
  }
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];
}
