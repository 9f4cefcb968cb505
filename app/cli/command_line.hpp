// The one way a lego subcommand reads its arguments with CLI11: --help
// prints the help (exit 0), a bad argument its error and where to look
// (exit 2).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "expr/diagnostic.hpp"

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

// A tile given as ROWSxCOLS ("64x64") to `option`: each side at least 1, at
// most 2^20 elements in all. Throws LegoError naming the option and `what`
// the tile is, with an example.
inline std::pair<int, int> rows_by_columns(const std::string& text, const std::string& option, const std::string& what) {
  const auto bad = [&] { return LegoError(option + " \"" + text + "\": ROWSxCOLS, " + what); };
  const auto x = text.find('x');
  if (x == std::string::npos) throw bad();
  int rows = 0, cols = 0;
  try {
    std::size_t end = 0;
    rows = std::stoi(text.substr(0, x), &end);
    if (end != x) throw bad();
    cols = std::stoi(text.substr(x + 1), &end);
    if (end != text.size() - x - 1) throw bad();
  } catch (const std::logic_error&) {  // stoi's invalid_argument and out_of_range
    throw bad();
  }
  if (rows < 1 || cols < 1 || std::int64_t{rows} * cols > (std::int64_t{1} << 20))
    throw LegoError(option + " \"" + text + "\": each side at least 1, at most 2^20 elements");
  return {rows, cols};
}

}  // namespace lego::cli
