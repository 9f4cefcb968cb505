#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "kernel/bounded_json.hpp"
#include "run/kernel_process.hpp"
#include "run/outcome.hpp"
#include "run/worker_transport.hpp"

namespace lego::run {

using Json = nlohmann::json;

std::string default_worker_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("lego-worker") : (self.parent_path() / "lego-worker").string();
}

WorkerClient::WorkerClient(std::string executable, Environment environment)
    : executable_(std::move(executable)), environment_(std::move(environment)) {}

WorkerClient::~WorkerClient() { stop(); }

namespace {

// The parent's environment with `changes` applied (an empty value unsets).
// Read in the parent, where fork's child read its own copy: a thread that
// calls setenv meanwhile races with it, as with getenv; the tools set their
// environment once, at start-up.
std::vector<std::string> environment_with(const WorkerClient::Environment& changes) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool changed = std::any_of(changes.begin(), changes.end(), [&](const auto& change) { return change.first == name; });
    if (!changed) entries.emplace_back(text);
  }
  for (const auto& [name, value] : changes)
    if (!value.empty()) entries.push_back(name + "=" + value);
  return entries;
}

// The lowest descriptor the worker's protocol ends take: 3 and 4.
constexpr int kRequestFd = 3, kAnswerFd = 4;

}  // namespace

void WorkerClient::start() {
  // Two pipes of their own carry the protocol: requests in, answers out.
  // The worker's stdin is /dev/null and its stdout goes to stderr, so what a
  // kernel prints never reaches the protocol; the nonce below catches a
  // kernel that finds the descriptors anyway (it runs in the same process).
  int requests[2] = {-1, -1}, answers[2] = {-1, -1};
  const auto close_all = [](std::initializer_list<int> fds) {
    for (const int fd : fds)
      if (fd >= 0) close(fd);
  };
  if (pipe2(requests, O_CLOEXEC) != 0 || pipe2(answers, O_CLOEXEC) != 0) {
    const int error = errno;
    close_all({requests[0], requests[1], answers[0], answers[1]});
    throw std::runtime_error(std::string("lego-worker: no pipe for its protocol: ") + std::strerror(error));
  }
  // The worker's ends are copied above the descriptors they land on, so
  // that placing one at 3 cannot overwrite the other.
  const int request_end = fcntl(requests[0], F_DUPFD_CLOEXEC, 10), answer_end = fcntl(answers[1], F_DUPFD_CLOEXEC, 10);
  const int dup_error = errno;
  close_all({requests[0], answers[1]});
  if (request_end < 0 || answer_end < 0) {
    close_all({request_end, answer_end, requests[1], answers[0]});
    throw std::runtime_error(std::string("lego-worker: no descriptor for its protocol: ") + std::strerror(dup_error));
  }
  // posix_spawn, not fork: the studio is a large process, and fork copies
  // its page tables and then takes a copy-on-write fault for each page its
  // UI thread writes (run/process.cpp has the measurements).
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  // A parent whose stderr is closed (`lego bench 2>&-`) gives the worker
  // /dev/null there instead: a dup of a closed descriptor would fail the start.
  if (fcntl(2, F_GETFD) >= 0)
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
  else
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, request_end, kRequestFd);
  posix_spawn_file_actions_adddup2(&actions, answer_end, kAnswerFd);
  // Only these two ends reach the worker: no other descriptor of the
  // parent (a GUI's files and sockets) does, close-on-exec or not.
  posix_spawn_file_actions_addclosefrom_np(&actions, kAnswerFd + 1);
  const std::vector<std::string> environment = environment_with(environment_);
  std::vector<char*> envp;
  for (const auto& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  // The worker dies with its parent (it sets PR_SET_PDEATHSIG and checks
  // that this pid is still its parent): a lego killed mid-sweep must not
  // leave a worker spinning in a hung kernel.
  const std::string fds = std::to_string(kRequestFd) + "," + std::to_string(kAnswerFd);
  const std::string parent = std::to_string(getpid());
  std::vector<char*> argv{const_cast<char*>(executable_.c_str()), const_cast<char*>("--protocol-fds"), const_cast<char*>(fds.c_str()),
                          const_cast<char*>("--parent-pid"),      const_cast<char*>(parent.c_str()),   nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, executable_.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close_all({request_end, answer_end});
  if (spawned != 0) {
    close_all({requests[1], answers[0]});
    throw std::runtime_error("lego-worker: cannot start " + executable_ + ": " + std::strerror(spawned));
  }
  pid_ = pid;
  to_worker_ = requests[1];
  from_worker_ = answers[0];
  pending_.clear();
  signal(SIGPIPE, SIG_IGN);  // a dead worker must not kill the parent on write
}

void WorkerClient::stop(bool mid_request) {
  if (pid_ <= 0) return;
  close(to_worker_);
  // Between requests the worker ends at the end of its requests, once its
  // kernels' last output is relayed; it is killed if it takes longer.
  bool ended = false;
  for (int waited_ms = 0; !mid_request && waited_ms < 2500 && !ended; waited_ms += 5) {
    ended = waitpid(pid_, nullptr, WNOHANG) == pid_;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  close(from_worker_);
  if (!ended) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
  // Its zygote, and a kernel it was running, die of its death a moment later.
  if (mid_request) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  forget_openmp_registrations_of_the_dead();
}

Json WorkerTransport::call(WorkerClient& w, const Json& request, double timeout_s, const WorkerClient::OnEvent& on_event,
                           const std::atomic<bool>* cancel) {
  const Json base = {{"id", request.value("id", 0)}, {"kernel", request.value("kernel", "")}, {"variant", request.value("variant", "")}};
  if (w.pid_ <= 0) {
    try {
      w.start();
    } catch (const std::runtime_error& e) {  // no worker binary, or out of descriptors: this request's error
      Json r = base;
      r["status"] = status_text(Status::Error);
      r["message"] = e.what();
      return r;
    }
  }
  // A fresh nonce per request, echoed by the worker in every line it sends
  // for it: a line without it was not written by the worker's protocol code
  // (a kernel writing to the protocol descriptor) or belongs to another request.
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const std::string nonce = std::to_string(random()) + std::to_string(random());
  Json sent_request = request;
  sent_request["nonce"] = nonce;
  const std::string line = sent_request.dump() + "\n";
  for (std::size_t sent = 0; sent < line.size();) {
    const ssize_t n = write(w.to_worker_, line.data() + sent, line.size() - sent);
    if (n <= 0) break;  // a dead worker shows up below as end of file
    sent += static_cast<std::size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    for (std::size_t nl; (nl = w.pending_.find('\n')) != std::string::npos;) {
      const std::string text = w.pending_.substr(0, nl);
      w.pending_.erase(0, nl + 1);
      Json message = kernel::parse_json_or_discarded(text);
      if (message.is_discarded()) continue;
      if (!message.is_object() || message.value("nonce", Json()) != nonce || message.value("id", Json()) != base["id"]) {
        w.stop(true);  // the stream can no longer be trusted
        Json r = base;
        r["status"] = status_text(Status::Error);
        r["message"] =
            "protocol error: the worker's output had a line that is not its answer to this request (a kernel writing "
            "to the protocol descriptor?); the variant's result is discarded and the worker restarted";
        return r;
      }
      message.erase("nonce");
      if (message.contains("event")) {
        if (on_event) on_event();
        continue;
      }
      if (message.value("worker_exits", false)) {  // its last answer (an LLVM fatal error): the next call starts a new one
        message.erase("worker_exits");
        w.stop();
      }
      return message;
    }
    if (cancel && cancel->load()) {
      w.stop(true);
      Json r = base;
      r["status"] = status_text(Status::Cancelled);
      r["message"] = "cancelled; the worker was stopped";
      return r;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      w.stop(true);
      Json r = base;
      r["status"] = status_text(Status::Timeout);
      r["message"] = "no result within " + std::to_string(static_cast<long>(timeout_s)) + " s; the worker was killed";
      return r;
    }
    pollfd p{w.from_worker_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left, cancel ? 50 : 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(w.from_worker_, chunk, sizeof chunk);
    if (n > 0) {
      w.pending_.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    // End of file: the worker died (generated code crashed it).
    int status = 0;
    close(w.to_worker_);
    close(w.from_worker_);
    waitpid(w.pid_, &status, 0);
    w.pid_ = -1;
    forget_openmp_registrations_of_the_dead();
    Json r = base;
    r["status"] = status_text(Status::Crashed);
    r["message"] = WIFSIGNALED(status) ? std::string("the worker died of signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                             strsignal(WTERMSIG(status)) + ")"
                                       : "the worker exited with status " + std::to_string(WEXITSTATUS(status));
    return r;
  }
}

}  // namespace lego::run
