// The one way a lego subcommand reads its arguments with CLI11: --help
// prints the help (exit 0), a bad argument its error and where to look
// (exit 2).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace lego::cli {

// nullopt when the arguments parsed and the command should run; else the exit status.
inline std::optional<int> parse_command_line(CLI::App& app, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help
      out << app.help();
      return 0;
    }
    err << "lego: " << e.what() << "\nRun 'lego " << (args.size() > 1 ? args[1] : "") << " --help' for usage.\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace lego::cli
