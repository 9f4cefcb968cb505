#include "run/kernel_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "expr/diagnostic.hpp"
#include "kernel/bounded_json.hpp"
#include "run/fd_io.hpp"
#include "run/kernel_sandbox.hpp"
#include "run/outcome.hpp"

namespace lego::run {

// A zygote forks one process at a time and reports its pid, then its wait
// status once it has ended. Two of them: kernels' processes, and the
// compiler's, which lives across many of those.
struct Zygote {
  int socket = -1;
  int owed_statuses = 0;  // of released processes, still to be read
};

namespace {

Zygote kernels, compilers;

// The statuses of released processes come first: they ended before the
// zygote took its next job.
bool drain_owed(Zygote& zygote) {
  for (int status = 0; zygote.owed_statuses > 0; --zygote.owed_statuses)
    if (!read_all(zygote.socket, &status, sizeof status)) return false;
  return true;
}

// Job messages carry no bytes worth trusting, only descriptors: the job
// itself is a memfd, so its size has no limit of the socket's.
void send_fds(int socket, const std::vector<int>& fds) {
  const std::uint32_t count = static_cast<std::uint32_t>(fds.size());
  iovec io{const_cast<std::uint32_t*>(&count), sizeof count};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control.data();
  message.msg_controllen = control.size();
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
  if (sendmsg(socket, &message, MSG_NOSIGNAL) < 0) throw std::runtime_error(std::string("the kernel zygote: ") + std::strerror(errno));
}

// False when the worker closed the socket.
bool receive_fds(int socket, std::vector<int>& fds) {
  constexpr std::size_t kMaxFds = 64;
  std::uint32_t count = 0;
  iovec io{&count, sizeof count};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxFds));
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control.data();
  message.msg_controllen = control.size();
  const ssize_t n = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  if (n <= 0) return false;
  fds.clear();
  for (cmsghdr* h = CMSG_FIRSTHDR(&message); h; h = CMSG_NXTHDR(&message, h))
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
      const std::size_t received = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      fds.resize(received);
      std::memcpy(fds.data(), CMSG_DATA(h), sizeof(int) * received);
    }
  return fds.size() == count && count >= 3;
}

// libomp registers a process that starts it with a file in /dev/shm named
// after its pid and user, and removes it at exit; a kernel's process is
// killed, so the file would stay (thousands after a few sweeps), and a
// later process given the same pid would find it and take it for a second
// copy of libomp.
void forget_openmp_registration(pid_t pid) {
  char name[96];
  std::snprintf(name, sizeof name, "/__KMP_REGISTERED_LIB_%d_%d", static_cast<int>(pid), static_cast<int>(getuid()));
  shm_unlink(name);
}

// The zygote: one job at a time. It forks the kernel's process, tells the
// worker its pid, and once it has ended, its wait status.
[[noreturn]] void zygote_loop(int socket) {
  std::vector<int> fds;
  while (receive_fds(socket, fds)) {
    const pid_t child = fork();
    if (child == 0) {
      close(socket);
      kernel_process_main(fds[0], fds[1], fds[2], std::vector<int>(fds.begin() + 3, fds.end()));
    }
    for (int fd : fds) close(fd);
    if (!write_all(socket, &child, sizeof child)) break;
    int status = 0;
    if (child > 0) {
      siginfo_t ended{};
      while (waitid(P_PID, static_cast<id_t>(child), &ended, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
      }
      forget_openmp_registration(child);  // before the pid is free for another process
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
    }
    if (!write_all(socket, &status, sizeof status)) break;
  }
  _exit(0);
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("killed by SIG") + (name ? name : std::to_string(sig).c_str());
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "";
}

}  // namespace

namespace {

// What kernels and the compiler write to stdout and stderr reaches the
// worker's stderr through a pipe, each line marked as theirs: they never
// hold the user's terminal or log file, which they could otherwise
// truncate, seek or make look like the tools' own output.
// Ready when every process that could write to the relay has gone and what
// they wrote has been passed on. The promise is the relay thread's own: the
// worker waits for it only so long, and may exit while a straggling kernel
// still holds the pipe; a global promise would then be destroyed under the
// thread's set_value (ASan saw that use after free).
std::shared_future<void> relay_drained;

void relay_output(int from) {
  auto drained = std::make_shared<std::promise<void>>();
  relay_drained = drained->get_future().share();
  std::thread([from, drained] {
    // A chatty kernel is cut off rather than flooding the terminal.
    constexpr std::size_t kBudget = 256u << 10;
    std::size_t relayed = 0;
    const auto relay = [&](const std::string& text) {
      if (relayed > kBudget) return;
      relayed += text.size();
      const std::string line = relayed > kBudget ? std::string("[kernel] (more output from kernels dropped: 256 KiB shown)\n")
                                                 : "[kernel] " + printable(text) + "\n";
      (void)write_all(2, line.data(), line.size());
    };
    std::string pending;
    char chunk[4096];
    for (ssize_t n; (n = read(from, chunk, sizeof chunk)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      pending.append(chunk, static_cast<std::size_t>(n));
      for (std::size_t end; (end = pending.find('\n')) != std::string::npos || pending.size() >= 4096;) {
        relay(pending.substr(0, end == std::string::npos ? pending.size() : end));
        pending.erase(0, end == std::string::npos ? pending.size() : end + 1);
      }
    }
    if (!pending.empty()) relay(pending);
    close(from);
    drained->set_value();
  }).detach();
}

void fork_zygote(Zygote& zygote, int output) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  const pid_t worker = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the worker's end is the zygote's
    if (getppid() != worker) _exit(0);
    prctl(PR_SET_DUMPABLE, 0);
    // Nothing of the worker's but the socket and the output relay: the
    // protocol's descriptors are the worker's alone.
    dup2(output, 1);
    dup2(output, 2);
    const int socket = dup2(pair[1], 3);
    close_range(4, ~0U, 0);
    const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, 0);
    if (null > 3) close(null);
    zygote_loop(socket);
  }
  close(pair[1]);
  zygote.socket = pair[0];
}

}  // namespace

void forget_openmp_registrations_of_the_dead() {
  const std::string prefix = "__KMP_REGISTERED_LIB_", suffix = "_" + std::to_string(getuid());
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/dev/shm", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    // Gone, or a zombie (killed, not yet reaped): it runs no more code.
    char state = 0;
    if (FILE* stat = std::fopen(("/proc/" + digits + "/stat").c_str(), "r")) {
      if (std::fscanf(stat, "%*d (%*[^)]) %c", &state) != 1) state = 0;
      std::fclose(stat);
    }
    if ((kill(pid, 0) != 0 && errno == ESRCH) || state == 'Z' || state == 'X') shm_unlink(("/" + name).c_str());
  }
}

void start_kernel_zygote() {
  if (kernels.socket >= 0) return;
  // A write to a process that has gone must fail, not end the worker.
  signal(SIGPIPE, SIG_IGN);
  int output[2];
  if (pipe2(output, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  fork_zygote(kernels, output[1]);
  fork_zygote(compilers, output[1]);
  close(output[1]);
  relay_output(output[0]);  // a thread, started after the forks
}

bool kernel_zygote_running() { return kernels.socket >= 0; }

void stop_kernel_zygotes_and_relay_their_output() {
  if (kernels.socket < 0) return;
  // Each zygote ends at the end of its socket, and its processes with it.
  for (Zygote* zygote : {&kernels, &compilers}) {
    close(zygote->socket);
    zygote->socket = -1;
  }
  if (relay_drained.valid()) relay_drained.wait_for(std::chrono::seconds(2));
}

std::string event_text(const std::optional<nlohmann::json>& event, const char* key) {
  if (!event) return "";
  const auto it = event->find(key);
  return it != event->end() && it->is_string() ? it->get<std::string>() : "";
}

namespace {
constexpr std::pair<KernelEvent, const char*> kEventWords[] = {
    {KernelEvent::Object, "object"},     {KernelEvent::Compiled, "compiled"}, {KernelEvent::CompileError, "compile-error"},
    {KernelEvent::Called, "called"},     {KernelEvent::Timed, "timed"},       {KernelEvent::Fault, "fault"},
    {KernelEvent::Analyzed, "analyzed"}, {KernelEvent::Error, "error"}};
}  // namespace

KernelEvent kernel_event(const std::optional<nlohmann::json>& event) {
  if (!event) return KernelEvent::None;
  const std::string word = event_text(event, "event");
  for (const auto& [e, w] : kEventWords)
    if (word == w) return e;
  return KernelEvent::Unknown;
}

const char* to_string(KernelEvent event) {
  for (const auto& [e, w] : kEventWords)
    if (e == event) return w;
  return event == KernelEvent::None ? "none" : "unknown";
}

std::optional<double> event_number(const std::optional<nlohmann::json>& event, const char* key) {
  if (!event) return std::nullopt;
  const auto it = event->find(key);
  return it != event->end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

namespace {

// The worker's compiler: a kernel process that serves compiles
// (kernel_child.cpp serve_compiles) for one scope (a kernel of a project),
// at most kCompilesPerServer of them, so that whatever one project's
// sources did to it does not reach another's.
struct Compiler {
  std::unique_ptr<KernelProcess> process;
  std::string scope;
  int served = 0;
};
Compiler compiler;
constexpr int kCompilesPerServer = 64;

// The compiler's answer for one source: {"event": "object", ...} or
// {"event": "compile-error", "message"}.
nlohmann::json compile_in_server(const nlohmann::json& job) {
  const std::string scope = job.value("scope", "");
  if (compiler.process && (compiler.scope != scope || compiler.served >= kCompilesPerServer)) compiler.process.reset();
  if (!compiler.process) {
    compiler.process = std::make_unique<KernelProcess>(
        nlohmann::json{{"compile_server", true}, {"target", "host"}, {"buffers", nlohmann::json::array()}}, std::vector<const Buffer*>{});
    compiler.scope = scope;
    compiler.served = 0;
  }
  nlohmann::json request = {{"source", job.at("source")},
                            {"target", job.value("target", "host")},
                            {"openmp", job.value("openmp", true)},
                            {"assembly", job.value("assembly", false)}};
  ++compiler.served;
  std::optional<nlohmann::json> answer;
  if (compiler.process->request(request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)))
    answer = compiler.process->next_event();
  const KernelEvent event = kernel_event(answer);
  if (event == KernelEvent::Object && answer->contains("object") && (*answer)["object"].is_string()) return std::move(*answer);
  const bool fatal = answer && answer->contains("fatal") && (*answer)["fatal"] == true;
  if (event == KernelEvent::CompileError && !fatal) return std::move(*answer);
  // An LLVM fatal error ended it, or it died: the next source gets a new one.
  const std::string how = compiler.process->finish();
  compiler.process.reset();
  if (event == KernelEvent::CompileError) return std::move(*answer);
  return {{"event", to_string(KernelEvent::CompileError)},
          {"message", "the compiler's process ended without a result" + (how.empty() ? std::string() : " (" + how + ")")}};
}

}  // namespace

KernelProcess::KernelProcess(const nlohmann::json& given_job, const std::vector<const Buffer*>& buffers) {
  if (kernels.socket < 0) throw std::runtime_error("no kernel zygote: start_kernel_zygote() was not called in this process");
  nlohmann::json job = given_job;
  zygote_ = job.value("compile_server", false) ? &compilers : &kernels;
  if (zygote_ == &compilers || job.value("compile_only", false)) max_line_ = 256u << 20;
  if (job.contains("source") && !job.value("compile_only", false)) {
    // Read as an event is (by type, never trusted), without copying the object.
    std::optional<nlohmann::json> answer(compile_in_server(job));
    if (kernel_event(answer) != KernelEvent::Object) {
      not_compiled_ = std::move(answer);
      finished_ = true;
      return;
    }
    job.erase("source");
    job["first_function"] = event_text(answer, "first_function");
    job["assembly"] = false;  // the compiler's, below
    compiled_ = nlohmann::json{{"assembly", event_text(answer, "assembly")}, {"ms", event_number(answer, "ms").value_or(0.0)}};
    job["object"] = std::move((*answer)["object"]);
  }
  if (!drain_owed(*zygote_)) throw std::runtime_error("the kernel zygote ended");
  const int job_fd = memfd_create("lego-job", MFD_CLOEXEC);
  if (job_fd < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  const std::string text = job.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  int events[2] = {-1, -1}, control[2] = {-1, -1};
  const bool ok = write_all(job_fd, text.data(), text.size()) && pipe2(events, O_CLOEXEC) == 0 && pipe2(control, O_CLOEXEC) == 0;
  if (!ok) {
    close(job_fd);
    throw std::runtime_error(std::string("preparing a kernel's process: ") + std::strerror(errno));
  }
  std::vector<int> fds = {job_fd, events[1], control[0]};
  for (const Buffer* b : buffers) fds.push_back(b->fd());
  try {
    send_fds(zygote_->socket, fds);
  } catch (...) {
    for (int fd : {job_fd, events[0], events[1], control[0], control[1]}) close(fd);
    throw;
  }
  for (int fd : {job_fd, events[1], control[0]}) close(fd);
  events_ = events[0];
  control_ = control[1];
  if (!read_all(zygote_->socket, &pid_, sizeof pid_)) {
    finished_ = true;
    ended_ = "the kernel zygote ended";
  } else if (pid_ <= 0) {
    finished_ = true;
    ended_ = "the kernel zygote could not fork";
    ++zygote_->owed_statuses;  // it still sends one, for nothing
  }
}

KernelProcess::~KernelProcess() {
  finish();
  if (events_ >= 0) close(events_);
  if (control_ >= 0) close(control_);
}

std::optional<nlohmann::json> KernelProcess::next_event() {
  if (not_compiled_) {
    std::optional<nlohmann::json> event = std::move(not_compiled_);
    not_compiled_.reset();
    return event;
  }
  for (;;) {
    if (const auto newline = pending_.find('\n'); newline != std::string::npos) {
      std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      if (auto parsed = kernel::parse_bounded_json(line); parsed && parsed->is_object()) {
        if (compiled_ && kernel_event(parsed) == KernelEvent::Compiled) {  // compiled there, loaded here
          (*parsed)["assembly"] = (*compiled_)["assembly"];
          (*parsed)["ms"] = (*compiled_)["ms"].get<double>() + event_number(parsed, "ms").value_or(0.0);
          compiled_.reset();
        }
        return parsed;
      }
      return nlohmann::json{{"event", to_string(KernelEvent::Error)},
                            {"message", "the kernel's process wrote a line that is not a JSON object"}};
    }
    if (pending_.size() > max_line_ || events_ < 0) return std::nullopt;
    char chunk[65536];
    const ssize_t n = read(events_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    pending_.append(chunk, static_cast<std::size_t>(n));
  }
}

bool KernelProcess::request(const std::string& text) {
  const std::uint32_t size = static_cast<std::uint32_t>(text.size());
  return !finished_ && control_ >= 0 && text.size() < (64u << 20) && write_all(control_, &size, sizeof size) &&
         write_all(control_, text.data(), text.size());
}

void KernelProcess::go() {
  const char byte = 'g';
  write_all(control_, &byte, 1);
}

std::string KernelProcess::finish() {
  if (finished_) return ended_;
  finished_ = true;
  kill(-pid_, SIGKILL);  // its group: threads and anything it started
  kill(pid_, SIGKILL);
  int status = 0;
  ended_ = drain_owed(*zygote_) && read_all(zygote_->socket, &status, sizeof status) ? describe_status(status) : "the kernel zygote ended";
  // Killed here after it finished is how every process ends, not news.
  if (ended_ == "killed by SIGKILL") ended_ = "";
  return ended_;
}

void KernelProcess::release() {
  if (finished_) return;
  finished_ = true;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  ++zygote_->owed_statuses;
}

nlohmann::json analyze_in_kernel_process(const nlohmann::json& request) {
  if (!kernel_zygote_running()) start_kernel_zygote();
  nlohmann::json failed = {
      {"id", request.value("id", 0)}, {"kernel", request.value("kernel", "")}, {"variant", request.value("variant", "")}};
  KernelProcess process({{"analyze", request}, {"buffers", nlohmann::json::array()}}, {});
  std::optional<nlohmann::json> event = process.next_event();
  if (kernel_event(event) == KernelEvent::Analyzed && event->contains("result") && (*event)["result"].is_object()) {
    nlohmann::json result = std::move((*event)["result"]);
    result["id"] = request.value("id", 0);  // the worker's own, whatever the process wrote
    return result;
  }
  const std::string how = process.finish();
  failed["status"] = "error";
  failed["message"] = !event_text(event, "message").empty()
                          ? event_text(event, "message")
                          : "the traced kernel's process ended without a result" + (how.empty() ? std::string() : " (" + how + ")");
  return failed;
}

CompileReply compile_without_running(const CompileRequest& request) {
  if (!kernel_zygote_running()) start_kernel_zygote();
  const nlohmann::json job = {{"source", request.source}, {"entry", ""},   {"target", request.target},          {"assembly", true},
                              {"compile_only", true},     {"time", false}, {"buffers", nlohmann::json::array()}};
  KernelProcess process(job, {});
  const std::optional<nlohmann::json> event = process.next_event();
  const KernelEvent what = kernel_event(event);
  const auto text = [&](const char* key) { return event_text(event, key); };
  if (what == KernelEvent::Compiled) return {Status::Ok, "", text("assembly")};
  if (what == KernelEvent::CompileError || what == KernelEvent::Error) return {Status::CompileError, text("message"), ""};
  const std::string how = process.finish();
  return {Status::CompileError, "the compiler's process ended without a result" + (how.empty() ? "" : " (" + how + ")"), ""};
}

}  // namespace lego::run
