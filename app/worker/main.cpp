// lego-worker: compiles, verifies and times one variant at a time. Requests
// are JSON lines; stage events and one result per request are JSON lines
// back. Started by lego or lego-studio, it talks on the two pipes named by
// --protocol-fds; by hand, on stdin and stdout. Generated code runs here,
// never in the GUI or the CLI; if it crashes this process dies and the
// parent reports it and moves on.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "run/analyze.hpp"
#include "run/ceilings.hpp"
#include "run/executor.hpp"
#include "run/jit.hpp"
#include "run/kernel_process.hpp"
#include "run/protocol.hpp"
#include "run/worker_handlers.hpp"
#include "run/worker_request.hpp"

namespace {

using lego::run::Status;
using lego::run::status_text;

struct Protocol {
  FILE* requests;
  FILE* answers;
};

// By hand: stdin and a copy of stdout, with fd 1 sent to stderr so that a
// kernel's printf cannot corrupt the answers. From lego: the two pipe ends
// its parent passed, kept from any process the worker itself starts.
Protocol open_protocol(const std::string& fds) {
  if (fds.empty()) {
    const int answers = dup(1);
    dup2(2, 1);
    return {stdin, fdopen(answers, "w")};
  }
  int request_fd = -1, answer_fd = -1;
  if (std::sscanf(fds.c_str(), "%d,%d", &request_fd, &answer_fd) != 2 || fcntl(request_fd, F_GETFD) < 0 || fcntl(answer_fd, F_GETFD) < 0) {
    std::fprintf(stderr, "lego-worker: --protocol-fds needs two open descriptors R,W, got \"%s\"\n", fds.c_str());
    std::exit(2);
  }
  fcntl(request_fd, F_SETFD, FD_CLOEXEC);
  fcntl(answer_fd, F_SETFD, FD_CLOEXEC);
  return {fdopen(request_fd, "r"), fdopen(answer_fd, "w")};
}

bool read_line(FILE* in, std::string& line) {
  line.clear();
  for (int c; (c = std::getc(in)) != EOF;) {
    if (c == '\n') return true;
    line.push_back(static_cast<char>(c));
  }
  return !line.empty();
}

void send(FILE* out, const nlohmann::json& message) {
  const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string fds;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--help" || arg == "-h") {
      std::cout << "lego-worker: reads JSON requests, one per line ({\"kind\": \"run\" | \"analyze\" | \"ceilings\" | \"ping\", ..}),\n"
                   "writes stage events and one JSON result per request. Started by lego and lego-studio, which pass\n"
                   "--protocol-fds R,W (the pipes to read requests from and write answers to) and --parent-pid P (exit with P);\n"
                   "by hand it uses stdin and stdout.\n";
      return 0;
    }
    if (arg == "--protocol-fds" && a + 1 < argc) {
      fds = argv[++a];
    } else if (arg == "--parent-pid" && a + 1 < argc) {
      // The worker dies with the lego that started it: a lego killed
      // mid-sweep must not leave a worker spinning in a hung kernel. The
      // check after prctl covers a parent that died before it took effect.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (std::to_string(getppid()) != argv[++a]) return 1;
    } else {
      std::fprintf(stderr, "lego-worker: unknown argument \"%s\" (try --help)\n", arg.c_str());
      return 2;
    }
  }
  int bargc = 1;
  benchmark::Initialize(&bargc, argv);
  // Kernels run in processes the zygote forks (run/kernel_process.hpp). It
  // is forked now, before a request, a nonce or a reference exists here, and
  // this process is made undumpable: a kernel cannot open its /proc entries.
  prctl(PR_SET_DUMPABLE, 0);
  lego::run::start_kernel_zygote();
  const Protocol protocol = open_protocol(fds);
  FILE* out = protocol.answers;
  lego::run::Executor executor;
  // LLVM's fatal errors cannot be returned from: the request being served
  // gets its answer (the variant does not compile, with LLVM's words) and
  // the worker exits; the client starts a fresh one for the next request.
  std::function<void(nlohmann::json)> answer_current;
  lego::run::on_llvm_fatal_error([&](const std::string& message) {
    if (answer_current)
      answer_current({{"status", status_text(Status::CompileError)}, {"message", "does not compile: " + message}, {"worker_exits", true}});
    std::_Exit(1);
  });
  std::string line;
  while (read_line(protocol.requests, line)) {
    if (line.empty()) continue;
    // Every field is checked before anything runs: a wrong type or range is
    // an error result naming the field, never an abort.
    const lego::run::ParsedRequest parsed = lego::run::parse_request(line);
    const auto reply = [&](nlohmann::json message) {
      message["id"] = parsed.id;
      message["nonce"] = parsed.nonce;
      send(out, message);
    };
    answer_current = reply;
    if (!parsed.error.empty()) {
      reply({{"status", status_text(Status::Error)}, {"message", parsed.error}});
      continue;
    }
    const nlohmann::json& request = parsed.request;
    const std::string kind = request.value("kind", "run");
    try {
      if (kind == "ping") {
        reply({{"status", status_text(Status::Ok)}});
      } else if (kind == "ceilings") {
        nlohmann::json r =
            lego::run::roof_json(lego::run::measure_ceilings(request.value("array_mib", 128), request.value("target", "host")));
        r["status"] = status_text(Status::Ok);
        reply(r);
      } else if (kind == "run") {
        reply(lego::run::to_json(executor.execute(lego::run::run_request_from_json(request), [&](const std::string& stage) {
          reply({{"event", "stage"}, {"stage", stage}});
        })));
      } else if (kind == "cuda-compile") {
        reply(lego::run::execute_cuda_compile(request));
      } else if (kind == "compile") {
        reply(lego::run::to_json(lego::run::compile_without_running(lego::run::compile_request_from_json(request))));
      } else if (kind == "analyze") {
        reply(lego::run::analyze_in_kernel_process(request));
      } else {
        reply({{"status", status_text(Status::Error)}, {"message", "unknown request kind \"" + kind + "\""}});
      }
    } catch (const std::exception& e) {  // an engine error: the fields were checked above
      reply({{"status", status_text(Status::Error)}, {"message", std::string("bad request: ") + e.what()}});
    }
  }
  lego::run::stop_kernel_zygotes_and_relay_their_output();
  return 0;
}
