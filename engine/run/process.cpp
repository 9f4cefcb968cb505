#include "run/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace lego::run {
namespace {

// Where execvp would find `program`: itself when it names a path, else
// the first executable of that name in PATH's directories.
std::string on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string directories = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t from = 0; from <= directories.size();) {
    const std::size_t to = std::min(directories.find(':', from), directories.size());
    const std::string directory = to > from ? directories.substr(from, to - from) : ".";
    const std::string candidate = directory + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    from = to + 1;
  }
  return program;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s) {
  ProcessResult r;
  if (argv.empty()) return r;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // posix_spawn, not fork: glibc starts the child in the parent's memory
  // (CLONE_VFORK), where fork copies the page tables under the address
  // space's lock and then takes a copy-on-write fault for every page the
  // parent writes. In the studio, a Slurm poll's squeue forked from a large
  // process (ASan's) stalled its UI thread for over a second.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so a timeout kills what it started too.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  int spawned = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  if (spawned == ENOEXEC) {
    // A script without a #! line: execvp ran those through /bin/sh, and
    // glibc's posix_spawnp does not (a site's sbatch wrapper may be one).
    std::vector<char*> through_sh{const_cast<char*>("/bin/sh")};
    const std::string script = on_path(argv[0]);
    through_sh.push_back(const_cast<char*>(script.c_str()));
    through_sh.insert(through_sh.end(), args.begin() + 1, args.end());
    spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, through_sh.data(), environ);
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    for (const int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    r.exit_code = 127;
    r.err = argv[0] + ": " + std::strerror(spawned) + "\n";
    return r;
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  bool killed = false;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      kill(-pid, SIGKILL);
      killed = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) < 0 && errno != EINTR) break;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[4096];
      const ssize_t n = read(fds[k].fd, buffer, sizeof buffer);
      if (n > 0) {
        if (sinks[k]->size() < (std::size_t{16} << 20)) sinks[k]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (killed) {
    r.exit_code = -1;
    r.err += "timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s\n";
  } else {
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  return r;
}

}  // namespace lego::run
