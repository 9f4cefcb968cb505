// A copy that, by MODE, also tries what the sandbox must refuse (issue 61,
// failures 1, 2, 6 and 7): changing a file's metadata, reading the user's
// files, shrinking its own tensors, allocating memory no limit counts or
// that outlives it, pushing keystrokes into the terminal, becoming dumpable,
// reading a file's extended attributes or watching a folder.
// The copy itself is right; a refused attempt writes B[0] = -1 (the
// verdict: wrong), so "ok" says an attempt went through. The files come from
// the environment: LEGO_TAMPER_FILE (the user's, mode 0644),
// LEGO_TAMPER_DIR (its folder, 0755) and LEGO_TAMPER_KEY (the cache key).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

const char* file() { return std::getenv("LEGO_TAMPER_FILE"); }

// The call failed, and not for a reason other than the sandbox.
bool refused(long rc) { return rc < 0 && (errno == EPERM || errno == EACCES || errno == ENOSYS); }

// Its tensors' memfds, shrunk or grown: the worker maps them too.
bool resized_a_tensor() {
  bool resized = false;
  for (int fd = 3; fd < 1100; ++fd) {
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    resized |= ftruncate(fd, 0) == 0 || ftruncate(fd, st.st_size * 2) == 0 || fallocate(fd, 0, 0, std::int64_t{2} << 30) == 0;
  }
  return resized;
}

// Every no-access region of a MiB or more unmapped (its tensors'), which
// frees that much address space; false if its maps cannot be read.
bool unmapped_no_access_regions() {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return false;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long from = 0, to = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &from, &to, perms) == 3 && std::strcmp(perms, "---p") == 0 && to - from >= (1ul << 20))
      munmap(reinterpret_cast<void*>(from), to - from);
  }
  std::fclose(maps);
  return true;
}

// Its tensors' no-access regions unmapped, then more memory than its limit.
bool allocated_past_the_limit() {
  if (!unmapped_no_access_regions()) return false;
  const std::size_t bytes = std::size_t{3} << 30;
  char* p = static_cast<char*>(std::malloc(bytes));
  if (!p) return false;
  volatile char* touched = p;  // volatile: the compiler may not drop the allocation as unused
  for (std::size_t b = 0; b < bytes; b += 4096) touched[b] = 1;
  std::free(p);
  return true;
}

bool grew_down_past_the_limit() {
  if (!unmapped_no_access_regions()) return false;
  const std::size_t bytes = std::size_t{3} << 30;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0);
  if (p == MAP_FAILED) return false;
  volatile char* touched = static_cast<char*>(p);
  for (std::size_t b = 0; b < bytes; b += 4096) touched[b] = 1;
  munmap(p, bytes);
  return true;
}

bool attempt_was_refused(int mode) {
  switch (mode) {
    case 1: return refused(chmod(file(), 04755));
    case 2: return refused(fchmodat(AT_FDCWD, std::getenv("LEGO_TAMPER_DIR"), 0777, 0));
    case 3: return refused(chown(file(), getuid(), getgid()));
    case 4: return refused(utimensat(AT_FDCWD, file(), nullptr, 0));
    case 5: return refused(setxattr(file(), "user.lego", "x", 1, 0));
    case 6: return refused(removexattr(file(), "user.lego"));
    case 7: {
      const int fd = open(file(), O_RDONLY);
      return fd < 0 || refused(flock(fd, LOCK_EX | LOCK_NB));
    }
    case 8: {
      const int fd = open(file(), O_RDONLY);
      struct flock lock {};
      lock.l_type = F_RDLCK;
      lock.l_whence = SEEK_SET;
      return fd < 0 || refused(fcntl(fd, F_OFD_SETLK, &lock));
    }
    case 9: return refused(truncate(file(), 0));
    case 10: return refused(open(std::getenv("LEGO_TAMPER_KEY"), O_RDONLY | O_NONBLOCK));
    case 11: return refused(open(file(), O_RDONLY));
    case 12: return !resized_a_tensor();
    case 13: return refused(shmget(IPC_PRIVATE, std::size_t{768} << 20, IPC_CREAT | 0600));
    case 14: return refused(semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
    case 15: return refused(syscall(SYS_add_key, "user", "lego-tamper", "x", 1, -4 /* KEY_SPEC_USER_KEYRING */));
    case 16: return refused(static_cast<long>(syscall(SYS_memfd_create, "lego-tamper", 0)));
    case 17: {
      void* shared = mmap(nullptr, std::size_t{64} << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      return shared == MAP_FAILED && errno == EPERM;
    }
    case 18: return !allocated_past_the_limit();
    case 19: {
      const char c = 'x';
      return refused(ioctl(0, TIOCSTI, &c));
    }
    case 20: return refused(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) && prctl(PR_GET_DUMPABLE) == 0;
    // A 32-bit command with bits set above it, which the kernel ignores.
    case 21: return refused(syscall(SYS_fcntl, 0, (1ul << 32) | F_SETOWN, getppid()));
    // fchmodat2 (Linux 6.6), newer than the filter's table.
    case 22: return refused(syscall(452, AT_FDCWD, file(), 0777, 0));
    // The attack review: an inode's flags through ioctl on a descriptor
    // opened to read (FS_IOC_SETFLAGS with nodump and noatime).
    case 23: {
      const int fd = open(file(), O_RDONLY);
      int flags = 0x40 | 0x80;
      return fd < 0 || refused(ioctl(fd, 0x40086602, &flags));
    }
    // Address space freed by unmapping the no-access regions, then taken
    // by a mapping that grows down, which RLIMIT_DATA does not count.
    case 24: return !grew_down_past_the_limit();
    // A pipe's buffer grown: memory no limit of the process counts.
    case 25: {
      int ends[2];
      return pipe(ends) != 0 || refused(fcntl(ends[0], 1031 /* F_SETPIPE_SZ */, 1 << 20));
    }
    // The attack review: an extended attribute's value read by name (one a
    // shared project's author could leave on the cache key), and the list.
    case 26: {
      char value[64];
      return refused(getxattr(file(), "user.lego", value, sizeof value));
    }
    case 27: {
      char names[256];
      return refused(listxattr(file(), names, sizeof names));
    }
    // The names of the files created or opened in the user's folder, watched.
    case 28: return refused(syscall(SYS_inotify_init1, 0)) && refused(syscall(SYS_inotify_init));
    case 29: return refused(syscall(SYS_fanotify_init, 0x200 /* FAN_REPORT_FID */, O_RDONLY));
  }
  return false;
}

}  // namespace

extern "C" void lego_kernel(const float* A, float* B) {
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];
  if (attempt_was_refused({{ MODE }})) B[0] = -1;
}
