// A copy that, by MODE, also tries to leave its sandbox (issue 29,
// failures 7 and 12): 1 forks a child that would outlive it and leave a
// file behind; 2 does so from a new session (setsid); 3 allocates and
// touches 4 GiB; 4 opens a TCP socket; 5 writes a file outside its
// buffers (the files are read-only to it); 6 sends signals to another of
// the user's processes (LEGO_ESCAPE_VICTIM) and to its parent; 7 writes a
// line to stderr and then tries to truncate it or rewind it (the user's log
// file, if it were). The copy itself is right, so only
// what the sandbox refused decides the verdict: a refused fork or socket
// writes B[0] = -1 (the verdict: wrong), an allocation beyond the limit dies.
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];
  const int mode = {{ MODE }};
  if (mode == 1 || mode == 2) {
    const pid_t child = fork();
    if (child == 0) {
      if (mode == 2) setsid();
      sleep(3);
      if (FILE* f = std::fopen(std::getenv("LEGO_ESCAPE_MARK"), "w")) std::fclose(f);
      _exit(0);
    }
    if (child < 0) B[0] = -1;
  }
  if (mode == 3) {
    const std::size_t bytes = std::size_t{4} << 30;
    char* p = static_cast<char*>(std::malloc(bytes));
    if (!p) std::abort();
    std::memset(p, 1, bytes);
    B[0] = p[bytes - 1];
    std::free(p);
  }
  if (mode == 4 && socket(AF_INET, SOCK_STREAM, 0) < 0) B[0] = -1;
  if (mode == 6) {
    const char* victim = std::getenv("LEGO_ESCAPE_VICTIM");
    const bool refused = kill(victim ? std::atoi(victim) : 1, SIGKILL) != 0;
    if (refused && kill(getppid(), SIGCONT) != 0) B[0] = -1;
  }
  if (mode == 7) {
    std::fprintf(stderr, "escape says hello\n");
    std::fflush(stderr);
    if (ftruncate(2, 0) != 0 && lseek(2, 0, SEEK_SET) < 0) B[0] = -1;
  }
  if (mode == 5) {
    if (FILE* f = std::fopen(std::getenv("LEGO_ESCAPE_MARK"), "w"))
      std::fclose(f);
    else
      B[0] = -1;
  }
}
