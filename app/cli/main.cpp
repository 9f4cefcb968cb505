#include <iostream>

#include "cli.hpp"
#include "kernel_commands.hpp"
#include "slurm_commands.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::vector<std::string> args(argv, argv + argc);
  if (args.size() > 1 && lego::cli::is_kernel_command(args[1])) return lego::cli::run_kernel_command(args, std::cout, std::cerr);
  if (args.size() > 1 && lego::cli::is_slurm_command(args[1])) return lego::cli::run_slurm_command(args, std::cout, std::cerr);
  return lego::cli::run(args, std::cout, std::cerr);
}
