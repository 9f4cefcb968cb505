#include "run/python_kernel.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "run/fd_io.hpp"
#include "run/python_environment.hpp"

namespace lego::run {
namespace {

const char kRunner[] =
#include "triton_runner_text.inc"
    ;

void send_error(int events_fd, const std::string& event, const std::string& message) {
  const std::string line =
      nlohmann::json{{"event", event}, {"message", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  (void)write_all(events_fd, line.data(), line.size());
}

// A Python string literal of `text`: a JSON string is one (its escapes are Python's too).
std::string python_literal(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void run_python_kernel(const nlohmann::json& job, const std::vector<Buffer>& mapped, int events_fd, const std::string& sandbox_note) {
  const PythonEnvironment& env = python_environment();
  if (!env.problem.empty()) {
    send_error(events_fd, "error", "a Triton variant runs under Triton's interpreter: " + env.problem);
    _exit(0);
  }
  // Before Python starts, an environment of its own: the kernel's Python
  // reads os.environ, and the user's (tokens, paths) is none of its
  // business. The interpreter mode, no bytecode written (the files are
  // read-only anyway), no user site, one numpy thread, no home.
  clearenv();
  setenv("TRITON_INTERPRET", "1", 1);
  setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
  setenv("PYTHONNOUSERSITE", "1", 1);
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("LANG", "C.UTF-8", 1);
  setenv("HOME", "/nonexistent", 1);
  void* python = dlopen(env.library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!python) {
    send_error(events_fd, "error", "Triton variants need " + env.library + " (Debian: libpython3-dev): " + dlerror());
    _exit(0);
  }
  using Initialize = void (*)(int);
  using RunString = int (*)(const char*);
  auto* initialize = reinterpret_cast<Initialize>(dlsym(python, "Py_InitializeEx"));
  auto* run = reinterpret_cast<RunString>(dlsym(python, "PyRun_SimpleString"));
  if (!initialize || !run) {
    send_error(events_fd, "error", env.library + " lacks Py_InitializeEx or PyRun_SimpleString");
    _exit(0);
  }
  initialize(0);  // 0: Python installs no signal handlers; a fault is still this process's to report
  nlohmann::json described = job.at("buffers");
  std::ostringstream buffers;
  buffers << "[";
  for (std::size_t k = 0; k < mapped.size(); ++k)
    buffers << "(" << reinterpret_cast<std::uintptr_t>(mapped[k].data()) << ", "
            << python_literal(described[k].at("type").get<std::string>()) << ", " << mapped[k].count() << ", "
            << python_literal(described[k].value("name", "T" + std::to_string(k))) << "), ";
  buffers << "]";
  nlohmann::json runner_job = job;
  runner_job["sandbox_note"] = sandbox_note;
  const std::string program = "import json, site, sys\nsite.addsitedir(" + python_literal(env.site_packages) +
                              ")\nLEGO_EVENTS = " + std::to_string(events_fd) + "\nLEGO_JOB = json.loads(" +
                              python_literal(runner_job.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
                              ")\nLEGO_BUFFERS = " + buffers.str() + "\n" + kRunner;
  if (run(program.c_str()) != 0) send_error(events_fd, "error", "the Triton runner stopped (its traceback is on the worker's stderr)");
  _exit(0);
}

}  // namespace lego::run
