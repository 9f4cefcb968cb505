// A Triton variant's run, in the kernel's process (run/kernel_child.cpp):
// CPython embedded there (libpython, loaded with dlopen), Triton's
// interpreter, and run/triton_runner.py, which sends the same events a C++
// kernel's process sends ("compiled", "called", "compile-error", "error").
// The process is behind the same sandbox: no exec, no fork, files read-only,
// and only the system's folders and the virtual environment readable.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/tensors.hpp"

namespace lego::run {

// Runs job["python_source"]'s launch function over the mapped tensors; never returns.
[[noreturn]] void run_python_kernel(const nlohmann::json& job, const std::vector<Buffer>& mapped, int events_fd,
                                    const std::string& sandbox_note);

}  // namespace lego::run
