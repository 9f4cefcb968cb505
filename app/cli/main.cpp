#include <iostream>

#include "cli.hpp"
#include "kernel_commands.hpp"
#include "printable_output.hpp"
#include "run/jit.hpp"
#include "slurm_commands.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const lego::cli::PrintableOutput printable_out(std::cout), printable_err(std::cerr);
  // lego compiles in process only to show code (export's assembly, never
  // run): an LLVM fatal error there ends lego as a compile error, exit 2.
  lego::run::on_llvm_fatal_error([](const std::string& message) {
    std::cerr << "lego: the kernel does not compile: " << message << std::endl;
    std::_Exit(2);
  });
  const std::vector<std::string> args(argv, argv + argc);
  // Each command reports its users' errors itself; what escapes one is a
  // bug, said as one rather than an abort.
  try {
    if (args.size() > 1 && lego::cli::is_kernel_command(args[1])) return lego::cli::run_kernel_command(args, std::cout, std::cerr);
    if (args.size() > 1 && lego::cli::is_slurm_command(args[1])) return lego::cli::run_slurm_command(args, std::cout, std::cerr);
    return lego::cli::run(args, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "lego: internal error: " << e.what() << " (this is a bug in lego; please report it with the command line)" << std::endl;
    return 70;
  }
}
