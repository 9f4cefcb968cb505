// A kernel that, with FORGE=1, computes nothing and tries every way it
// knows to report a forged "verified, fast" result (issue 13, failure 6, and
// issue 29, failure 5): it writes a result line to every descriptor it
// might hold, to every pipe of its parent and grandparent that /proc lets it
// open, and then ends its process before anyone can compare its output.
// With FORGE=2..4 it computes the right answer, is verified, and then, on
// the first call that is timed, writes a "timed" event of its own on the
// kernel process's event pipe (descriptor 1002, where the harness puts it)
// and ends: a report of the wrong shape (2: a number for a run, 3: a word
// for a time) or a time no machine runs it in (4: a picosecond, beyond the
// copy bandwidth; 5: the smallest double, under any call's time).
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

static void forge_everywhere() {
  const char* forged = "{\"id\":1,\"nonce\":\"\",\"status\":\"ok\",\"verified\":true,\"median_ms\":0.000001}\n";
  for (int fd = 0; fd < 4096; ++fd) (void)!write(fd, forged, std::strlen(forged));
  for (const pid_t pid : {getppid(), getpgrp(), pid_t(1)}) {
    const std::string folder = "/proc/" + std::to_string(pid) + "/fd";
    if (DIR* d = opendir(folder.c_str())) {
      while (dirent* e = readdir(d)) {
        const int fd = open((folder + "/" + e->d_name).c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) {
          (void)!write(fd, forged, std::strlen(forged));
          close(fd);
        }
      }
      closedir(d);
    }
  }
}

static void forge_the_time(int how) {
  const char* forged[] = {
      "{\"event\":\"timed\",\"benchmark\":{\"benchmarks\":[5]}}\n",
      "{\"event\":\"timed\",\"benchmark\":{\"benchmarks\":[{\"run_type\":\"iteration\",\"real_time\":\"fast\"}]}}\n",
      "{\"event\":\"timed\",\"benchmark\":{\"benchmarks\":[{\"run_type\":\"iteration\",\"real_time\":1e-9,"
      "\"iterations\":1}]}}\n",
      "{\"event\":\"timed\",\"benchmark\":{\"benchmarks\":[{\"run_type\":\"iteration\",\"real_time\":5e-324,"
      "\"iterations\":1}]}}\n"};
  const char* line = forged[how - 2];
  (void)!write(1002, line, std::strlen(line));
  _exit(0);
}

extern "C" void lego_kernel(const float* A, float* B) {
  static int calls = 0;
  const int forge = {{ FORGE }};
  if (forge == 1) {
    forge_everywhere();
    _exit(0);
  }
  if (forge >= 2 && ++calls > 1) forge_the_time(forge);
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];
}
