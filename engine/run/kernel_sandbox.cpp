#include "run/kernel_sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "expr/diagnostic.hpp"
#include "run/python_environment.hpp"

namespace lego::run {
namespace {

// From here on, a system call libseccomp has no name for is refused
// (ENOSYS), so a kernel newer than the filter gains nothing by its new
// calls. 451 (cachestat) is the first after Debian 12's kernel headers.
constexpr int kFirstUnlistedCall = 451;

// A kernel's process holds its job, events, control and up to 64 tensors at
// descriptors from 1000 (run/kernel_child.cpp).
constexpr rlim_t kMostDescriptors = 2048;

// The process's data (private writable memory), in bytes, as RLIMIT_DATA counts it.
long long data_bytes() {
  long long kib = 0;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmData: %lld kB", &kib) == 1) break;
    std::fclose(f);
  }
  return kib * 1024;
}

long long mapped_bytes() {
  long long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * sysconf(_SC_PAGESIZE);
}

// The user's tasks (threads count, as RLIMIT_NPROC counts them): /proc/PID
// belongs to the process's user, and /proc/PID/task holds a folder per thread.
long long user_tasks() {
  long long tasks = 0;
  if (DIR* proc = opendir("/proc")) {
    while (const dirent* entry = readdir(proc)) {
      if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
      struct stat process {};
      struct stat threads {};
      const std::string folder = std::string("/proc/") + entry->d_name;
      if (stat(folder.c_str(), &process) == 0 && process.st_uid == getuid() && stat((folder + "/task").c_str(), &threads) == 0)
        tasks += threads.st_nlink > 2 ? static_cast<long long>(threads.st_nlink) - 2 : 1;
    }
    closedir(proc);
  }
  return tasks;
}

std::string apply_limits() {
  std::string failed;
  const long long memory_mib =
      kernel_limit("LEGO_KERNEL_MEMORY_MIB", static_cast<long long>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / 2 / (1 << 20));
  const long long cpu_seconds = kernel_limit("LEGO_KERNEL_CPU_SECONDS", 3600);
  // A stricter limit of the user's own (ulimit -v) stays: it is the wall.
  const auto limited = [](int resource, rlim_t wanted) {
    rlimit now{};
    if (getrlimit(resource, &now) == 0 && now.rlim_max != RLIM_INFINITY && now.rlim_max < wanted) wanted = now.rlim_max;
    return rlimit{wanted, wanted};
  };
  // Two walls: the address space, and the private writable memory (data)
  // on its own. The tensors' no-access regions are address space the
  // kernel could unmap for more; they are no data, so the second wall
  // stands whatever it unmaps. Shared anonymous memory, which is not data,
  // is refused by the filter.
  const rlimit memory = limited(RLIMIT_AS, static_cast<rlim_t>(mapped_bytes() + memory_mib * (1LL << 20)));
  const rlimit data = limited(RLIMIT_DATA, static_cast<rlim_t>(data_bytes() + memory_mib * (1LL << 20)));
  const rlimit cpu = limited(RLIMIT_CPU, static_cast<rlim_t>(cpu_seconds));
  const rlimit no_core{0, 0};
  if (setrlimit(RLIMIT_AS, &memory) != 0 || setrlimit(RLIMIT_DATA, &data) != 0) failed += " the memory limit;";
  // Descriptors: what it holds (its tensors sit near 1000) and room beyond,
  // not the hard limit, so that pipes' buffers (kernel memory, 64 KiB each)
  // add up to little.
  const rlimit files = limited(RLIMIT_NOFILE, kMostDescriptors);
  if (setrlimit(RLIMIT_NOFILE, &files) != 0) failed += " the descriptor limit;";
  if (setrlimit(RLIMIT_CPU, &cpu) != 0) failed += " the CPU limit;";
  // Threads: OpenMP's, and a budget beyond, so that a kernel cannot take
  // every pid of the machine (the user's tasks count towards the limit, so
  // it is what the user runs now plus the budget; root is exempt).
  const long long threads = kernel_limit("LEGO_KERNEL_THREADS", 1024);
  const auto budget = static_cast<rlim_t>(user_tasks() + threads);
  const rlimit tasks{budget, budget};
  if (setrlimit(RLIMIT_NPROC, &tasks) != 0) failed += " the thread limit;";
  setrlimit(RLIMIT_CORE, &no_core);
  return failed;
}

std::string drop_privileges() {
  std::string failed;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) failed += " no_new_privs;";
  prctl(PR_SET_DUMPABLE, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[2] = {};
  if (syscall(SYS_capset, &header, none) != 0) failed += " dropping capabilities;";
  return failed;
}

// What a file is beside its contents: its mode (a setuid bit, a folder
// opened to every user), owner, times and extended attributes, and its
// length. Landlock's read-only rule does not cover these before Linux 6.2
// (truncate) or at all (the others). The kernel's own tensors are mapped
// memfds whose sizes the worker sealed; nothing else of its is a file.
int deny_file_changes(scmp_filter_ctx filter) {
  int rc = 0;
  for (int call :
       {SCMP_SYS(chmod),     SCMP_SYS(fchmod),    SCMP_SYS(fchmodat),    SCMP_SYS(chown),        SCMP_SYS(fchown),       SCMP_SYS(lchown),
        SCMP_SYS(fchownat),  SCMP_SYS(utime),     SCMP_SYS(utimes),      SCMP_SYS(utimensat),    SCMP_SYS(futimesat),    SCMP_SYS(setxattr),
        SCMP_SYS(lsetxattr), SCMP_SYS(fsetxattr), SCMP_SYS(removexattr), SCMP_SYS(lremovexattr), SCMP_SYS(fremovexattr), SCMP_SYS(flock),
        SCMP_SYS(truncate),  SCMP_SYS(ftruncate), SCMP_SYS(fallocate)})
    rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), call, 0);
  // fchmodat2 (Linux 6.6) by its number, 452 on x86-64 and AArch64 alike,
  // whether or not this libseccomp has its name.
  constexpr int kFchmodat2 = 452;
  rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), kFchmodat2, 0);
  // Calls newer than this libseccomp's table (setxattrat and removexattrat
  // from Linux 6.13, and whatever comes next): ENOSYS, which sends glibc
  // back to the older calls refused above.
  for (int call = kFirstUnlistedCall; call < kFirstUnlistedCall + 64; ++call)
    if (seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, call) == nullptr)
      rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), call, 0);
  return rc;
}

// What Landlock leaves readable outside the readable folders: a file's
// extended attributes (a value someone left on the cache key), and, through
// inotify and fanotify, the names of what is created or opened in a folder
// the kernel cannot list (the attack review of issue 61). A path's stat and
// readlink stay: Landlock does not cover them, and the C library needs them.
int deny_watching_and_attributes(scmp_filter_ctx filter) {
  int rc = 0;
  for (int call :
       {SCMP_SYS(getxattr), SCMP_SYS(lgetxattr), SCMP_SYS(fgetxattr), SCMP_SYS(listxattr), SCMP_SYS(llistxattr), SCMP_SYS(flistxattr),
        SCMP_SYS(inotify_init), SCMP_SYS(inotify_init1), SCMP_SYS(inotify_add_watch), SCMP_SYS(fanotify_init), SCMP_SYS(fanotify_mark)})
    rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), call, 0);
  return rc;
}

// Memory no address-space limit counts and that outlives the kernel's
// process: memfds (a file's pages, mapped or not), SysV shared memory,
// semaphores and message queues, POSIX message queues, and keys in the
// user's keyrings.
int deny_lasting_allocations(scmp_filter_ctx filter) {
  int rc = 0;
  // Shared anonymous mappings are memory RLIMIT_DATA does not count; so are
  // mappings that grow down (a stack's), whatever else they are.
  for (const scmp_datum_t type : {MAP_SHARED, MAP_SHARED_VALIDATE})
    rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1,
                           SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_TYPE | MAP_ANONYMOUS, type | MAP_ANONYMOUS));
  rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1, SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_GROWSDOWN, MAP_GROWSDOWN));
  for (int call :
       {SCMP_SYS(memfd_create), SCMP_SYS(memfd_secret), SCMP_SYS(shmget), SCMP_SYS(shmat), SCMP_SYS(shmctl), SCMP_SYS(semget),
        SCMP_SYS(semop), SCMP_SYS(semtimedop), SCMP_SYS(semctl), SCMP_SYS(msgget), SCMP_SYS(msgsnd), SCMP_SYS(msgrcv), SCMP_SYS(msgctl),
        SCMP_SYS(mq_open), SCMP_SYS(mq_unlink), SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(keyctl), SCMP_SYS(userfaultfd)})
    rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), call, 0);
  return rc;
}

std::string install_seccomp() {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (!filter) return " seccomp (not available);";
  const auto deny = [&](int call) { return seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), call, 0); };
  int rc = 0;
  for (int call :
       {SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv),
        SCMP_SYS(process_vm_writev), SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(io_uring_setup),
        SCMP_SYS(setsid), SCMP_SYS(setpgid), SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(personality)})
    rc |= deny(call);
  // Signals only to itself: kill, tgkill and the queued forms name a
  // process, and any other of the user's processes (the worker, the
  // compiler, an editor) is refused. tkill names a bare thread id, which
  // seccomp cannot tell apart, and pidfds reach any process: both refused.
  const auto self = static_cast<scmp_datum_t>(getpid());
  for (int call : {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo)})
    rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), call, 1, SCMP_A0(SCMP_CMP_NE, self, 0));
  for (int call : {SCMP_SYS(tkill), SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_getfd), SCMP_SYS(kcmp),
                   SCMP_SYS(process_madvise)})
    rc |= deny(call);
  // Its own limits, scheduling and memory placement only (glibc and libomp
  // name the calling thread as pid 0); no priorities.
  for (int call : {SCMP_SYS(prlimit64), SCMP_SYS(sched_setaffinity), SCMP_SYS(sched_setscheduler), SCMP_SYS(sched_setparam),
                   SCMP_SYS(sched_setattr), SCMP_SYS(migrate_pages), SCMP_SYS(move_pages), SCMP_SYS(get_robust_list)})
    rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), call, 1, SCMP_A0(SCMP_CMP_NE, 0, 0));
  rc |= deny(SCMP_SYS(setpriority));
  rc |= deny(SCMP_SYS(ioprio_set));
  rc |= deny_file_changes(filter);
  rc |= deny_watching_and_attributes(filter);
  rc |= deny_lasting_allocations(filter);
  // fcntl's and ioctl's commands and prctl's option are 32-bit in the
  // kernel, which ignores the upper half of the register: the rules compare
  // the lower half only, or 0x1_0000_0000 + F_SETOWN would pass.
  const auto deny_command = [&](int call, unsigned arg, scmp_datum_t command) {
    return seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), call, 1, scmp_arg_cmp{arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, command});
  };
  // A descriptor's owner receives SIGIO (or any signal F_SETSIG names) when
  // it is ready: an owner other than itself is a signal seccomp's kill rule
  // never sees (Landlock's signal scope stops it only from Linux 6.12). A
  // lease makes another process's open of the file wait for 45 s, and
  // record locks stall the user's other programs: all refused.
  // F_SET_RW_HINT and F_SET_FILE_RW_HINT set a file's write-life hint;
  // F_SETPIPE_SZ grows a pipe's buffer, memory no limit of the process counts.
  constexpr scmp_datum_t kSetRwHint = 1036, kSetFileRwHint = 1038, kSetPipeSize = 1031;
  for (const scmp_datum_t command :
       {scmp_datum_t{F_SETOWN}, scmp_datum_t{F_SETOWN_EX}, scmp_datum_t{F_SETLEASE}, scmp_datum_t{F_SETLK}, scmp_datum_t{F_SETLKW},
        scmp_datum_t{F_OFD_SETLK}, scmp_datum_t{F_OFD_SETLKW}, scmp_datum_t{F_ADD_SEALS}, kSetRwHint, kSetFileRwHint, kSetPipeSize})
    rc |= deny_command(SCMP_SYS(fcntl), 1, command);
  // An inode's flags (immutable, append-only, nodump, noatime ...), its
  // project id and extended flags, and its version: metadata that needs
  // only the file's ownership and a descriptor opened to read it. Each
  // request in its 64-bit and 32-bit encoding.
  for (const scmp_datum_t request :
       {0x40086602 /* FS_IOC_SETFLAGS */, 0x40046602 /* FS_IOC32_SETFLAGS */, 0x401c5820 /* FS_IOC_FSSETXATTR */,
        0x40087602 /* FS_IOC_SETVERSION */, 0x40047602 /* FS_IOC32_SETVERSION */})
    rc |= deny_command(SCMP_SYS(ioctl), 1, request);
  // FIOSETOWN and SIOCSPGRP set an owner as F_SETOWN does; TIOCSTI pushes
  // characters into the terminal's input, as if the user typed them (the
  // kernel's process still has lego's controlling terminal); TIOCLINUX can
  // do the same on a virtual console.
  for (const scmp_datum_t request : {0x8901 /* FIOSETOWN */, 0x8902 /* SIOCSPGRP */, 0x5412 /* TIOCSTI */, 0x541c /* TIOCLINUX */})
    rc |= deny_command(SCMP_SYS(ioctl), 1, request);
  // Dumpable again, its memory and descriptors would be open to the user's
  // other processes (and their ptrace).
  rc |= deny_command(SCMP_SYS(prctl), 0, PR_SET_DUMPABLE);
  // clone makes threads (allowed) or processes (not): the flags tell.
  rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  // clone3 passes its flags in memory, which seccomp cannot read: ENOSYS
  // sends glibc back to clone.
  rc |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  if (rc == 0) rc = seccomp_load(filter);
  seccomp_release(filter);
  return rc == 0 ? "" : " seccomp (" + std::string(std::strerror(-rc)) + ");";
}

// Folders a kernel's process may read (Landlock): the system's programs,
// libraries and headers, what glibc, OpenMP, OpenBLAS and Google
// Benchmark read of the machine, and the Python environment of Triton's interpreter. Not the user's home, /tmp or the
// checkout: the results cache's key and entries, a project's other files,
// the user's keys. A compiler or library installed elsewhere is read where
// the build found it (its prefix: the folder above bin/ or lib/).
std::vector<std::string> readable_folders() {
  std::vector<std::string> folders = {"/usr",          "/lib",       "/lib32",    "/lib64",      "/libx32",    "/bin",
                                      "/sbin",         "/etc",       "/opt",      "/sys",        "/proc/self", "/proc/cpuinfo",
                                      "/proc/meminfo", "/proc/stat", "/proc/sys", "/dev/urandom"};
  for (const char* tool : {LEGO_CLANG_PATH, LEGO_LIBOMP_PATH}) {
    std::string prefix = tool;
    for (int up = 0; up < 2 && prefix.find('/') != std::string::npos; ++up) prefix.erase(prefix.rfind('/'));
    if (!prefix.empty()) folders.push_back(prefix);
  }
  // Triton's interpreter and numpy, for Triton variants: the virtual
  // environment only, never the checkout it may sit in.
  if (!python_environment().folder.empty()) folders.push_back(python_environment().folder);
  return folders;
}

// Files read-only, and only the folders above readable (Landlock): a
// kernel, a reference or the compiler reads headers and libraries, and
// writes nothing but its buffers, which are mapped before this. /dev/null
// stays writable, as libraries expect. Where the kernel lacks Landlock
// (before Linux 5.13, or not in its LSM list) the sandbox says so and the
// files are the user's, as they were.
std::string restrict_files() {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return " read-only files (Landlock: " + std::string(std::strerror(errno)) + ");";
  // Every right this kernel's Landlock knows is handled, so none is left
  // allowed by default: ABI 1 has the first 13, 2 adds REFER, 3 TRUNCATE,
  // 5 IOCTL_DEV.
  __u64 handled = (1ULL << 13) - 1;
  if (abi >= 2) handled |= 1ULL << 13;
  if (abi >= 3) handled |= 1ULL << 14;
  if (abi >= 5) handled |= 1ULL << 15;
  // The ruleset as Linux 6.12 lays it out: Debian 12's header stops at the
  // first field. ABI 6 scopes signals: none reaches a process outside this
  // sandbox (the same wall as seccomp's, kept by the kernel).
  struct {
    __u64 handled_access_fs, handled_access_net, scoped;
  } ruleset{handled, 0, 0};
  constexpr __u64 kScopeAbstractUnixSocket = 1, kScopeSignal = 2;
  std::size_t size = sizeof(__u64);
  if (abi >= 6) {
    ruleset.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    size = sizeof ruleset;
  }
  const int fd = static_cast<int>(syscall(SYS_landlock_create_ruleset, &ruleset, size, 0));
  if (fd < 0) return " read-only files (Landlock: " + std::string(std::strerror(errno)) + ");";
  // A folder this machine lacks (no /lib32) is no rule; one that is there
  // but cannot be ruled fails the wall.
  const auto allow = [&](const std::string& path, __u64 rights) {
    landlock_path_beneath_attr rule{};
    rule.parent_fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (rule.parent_fd < 0) return errno == ENOENT || errno == ENOTDIR;
    struct stat st {};
    // A file's rule holds only the rights a file has (READ_DIR is a folder's).
    if (fstat(rule.parent_fd, &st) == 0 && !S_ISDIR(st.st_mode))
      rights &= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_EXECUTE;
    rule.allowed_access = rights & handled;
    const bool ok = syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0;
    close(rule.parent_fd);
    return ok;
  };
  const __u64 read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;
  bool ruled = allow("/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE);
  for (const std::string& folder : readable_folders()) ruled = ruled && allow(folder, read);
  const bool applied = ruled && syscall(SYS_landlock_restrict_self, fd, 0) == 0;
  const int error = errno;
  close(fd);
  return applied ? "" : " read-only files (Landlock: " + std::string(std::strerror(error)) + ");";
}

}  // namespace

long long kernel_limit(const char* variable, long long fallback) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value <= 0 || value > (1LL << 40))
    throw LegoError(std::string(variable) + "=\"" + text + "\": expected a positive whole number");
  return value;
}

std::string enter_kernel_sandbox() {
  std::string failed = apply_limits();
  failed += drop_privileges();  // no_new_privs first: Landlock and seccomp need it
  failed += restrict_files();
  failed += install_seccomp();
  if (failed.empty()) return "";
  failed.pop_back();
  return "the kernel's sandbox is partial: could not set" + failed;
}

}  // namespace lego::run
