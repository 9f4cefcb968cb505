// Runs a program (sbatch, squeue, ssh, ...) with an argument vector, never
// through a shell, so nothing in a name or a path is ever interpreted as
// shell syntax. Its stdout and stderr are captured; it is killed past the
// timeout. Used by the Slurm commands (slurm.hpp).
#pragma once

#include <string>
#include <vector>

namespace lego::run {

struct ProcessResult {
  int exit_code = -1;  // 127: could not start; -1: killed (timeout)
  std::string out, err;
  bool ok() const { return exit_code == 0; }
};

// argv[0] is looked up on PATH. stdin is /dev/null.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 60);

}  // namespace lego::run
