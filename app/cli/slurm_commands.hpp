// lego submit / lego collect: variant sweeps as Slurm job arrays, results
// merged back into the project (issue 17; engine: project/runs.hpp).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lego::cli {

bool is_slurm_command(const std::string& name);
int run_slurm_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
