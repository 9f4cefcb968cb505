// A copy that, by MODE, also tries to leave its sandbox (issue 29,
// failures 7 and 12): 1 forks a child that would outlive it and leave a
// file behind; 2 does so from a new session (setsid); 3 allocates and
// touches 4 GiB; 4 opens a TCP socket; 5 writes a file outside its
// buffers (the files are read-only to it); 6 sends signals to another of
// the user's processes (LEGO_ESCAPE_VICTIM) and to its parent; 7 writes a
// line with an escape sequence and a flood of lines to stderr and then tries
// to truncate it or rewind it (the user's log file, if it were); 8 checks
// that its thread limit is set. The copy itself is right, so only
// what the sandbox refused decides the verdict: a refused fork or socket
// writes B[0] = -1 (the verdict: wrong), an allocation beyond the limit dies.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
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
    const pid_t target = victim ? std::atoi(victim) : 1;
    const sched_param idle{};
    int pipe_ends[2];
    // A descriptor owned by another process sends it SIGIO (or the signal
    // F_SETSIG names) when written.
    const bool owner = pipe(pipe_ends) == 0 && fcntl(pipe_ends[0], F_SETOWN, target) != 0;
    const bool refused = kill(target, SIGKILL) != 0 && kill(getppid(), SIGCONT) != 0 && sched_setscheduler(target, SCHED_IDLE, &idle) != 0 &&
                         setpriority(PRIO_PROCESS, static_cast<id_t>(target), 19) != 0;
    if (refused && owner) B[0] = -1;
  }
  if (mode == 7) {
    std::fprintf(stderr, "escape says hello\x1b[2J\n");
    for (int line = 0; line < 5000; ++line) std::fprintf(stderr, "a flood of output, line %d, that the relay cuts off\n", line);
    std::fflush(stderr);
    if (ftruncate(2, 0) != 0 && lseek(2, 0, SEEK_SET) < 0) B[0] = -1;
  }
  if (mode == 8) {  // a thread limit stands (root is exempt from it, not from having it)
    rlimit threads{};
    if (getrlimit(RLIMIT_NPROC, &threads) == 0 && threads.rlim_cur != RLIM_INFINITY) B[0] = -1;
  }
  if (mode == 5) {
    if (FILE* f = std::fopen(std::getenv("LEGO_ESCAPE_MARK"), "w"))
      std::fclose(f);
    else
      B[0] = -1;
  }
}
