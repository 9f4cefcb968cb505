// The walls of a kernel's process (run/kernel_process.hpp), raised in the
// forked process before it reads its job:
//   - no new privileges and no capabilities, not dumpable: it cannot open
//     the worker's or lego's /proc/PID/fd and /proc/PID/mem, or trace them;
//   - seccomp: no fork, vfork, exec, ptrace, process_vm_*, sockets or
//     io_uring (threads are allowed: OpenMP needs them), so nothing it starts
//     outlives it and nothing reaches the network;
//   - signals to itself only (seccomp, and Landlock's signal scope where
//     Linux has it, 6.12 on): it cannot stop or kill the worker, the
//     compiler or any other process of the user's;
//   - files read-only (Landlock), /dev/null writable, and only the system's
//     folders readable: not the user's home, /tmp or the results cache;
//   - no change to any file's metadata (mode, owner, times, extended
//     attributes, length, locks), no keystrokes pushed into the terminal,
//     no way back to being dumpable (seccomp);
//   - nothing allocated that outlives it or escapes the limits: memfds,
//     SysV IPC, POSIX message queues, keyrings and shared anonymous
//     mappings refused (seccomp);
//   - limits: address space and private memory (LEGO_KERNEL_MEMORY_MIB,
//     default half of the machine's memory, on top of the buffers already
//     mapped), CPU seconds
//     (LEGO_KERNEL_CPU_SECONDS, default 3600), threads (LEGO_KERNEL_THREADS
//     beyond the user's running tasks, default 1024), no core files.
#pragma once

#include <string>

namespace lego::run {

// "" when every wall stands, else what could not be raised (the worker
// reports it once; the kernel runs with the walls that did).
std::string enter_kernel_sandbox();

// A limit from the environment, in its unit, or `fallback` when unset;
// throws LegoError naming the variable when it is not a positive integer.
long long kernel_limit(const char* variable, long long fallback);

}  // namespace lego::run
