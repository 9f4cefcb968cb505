#include "studio/examples.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "expr/text_file.hpp"
#include "layout/parse.hpp"
#include "layout/symbolic.hpp"

namespace lego::studio {

// The checkout this program was built in: the nearest folder above the
// executable (build/<preset>/bin/) that holds projects/paper-layouts.lego.
// The compiled-in path names wherever CMake was configured, which may be
// another copy of the tree; it is the last resort.
std::string projects_dir() {
  if (const char* env = std::getenv("LEGO_PROJECTS")) return env;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path())
      if (fs::is_regular_file(dir / "projects" / "paper-layouts.lego", ec)) return (dir / "projects").string();
  return LEGO_PROJECTS_DIR;
}

std::vector<Example> load_examples(const std::string& lego_file) {
  const std::string source = read_regular_file(lego_file, "layout program", kMaxSourceBytes);
  Program program;
  try {
    program = parse_program(source);
  } catch (const LegoError& e) {
    throw LegoError(format_diagnostic(source, e.diagnostic(), lego_file));
  }
  const Env env = evaluate_program_env(program, {});
  std::vector<Example> out;
  for (const auto& d : program.definitions) {
    const auto* layout = std::get_if<LayoutAst>(&d.value);
    if (!layout) continue;
    Example e{d.name, lego_file, print(*layout), ""};
    for (const auto& symbol : free_symbols(*layout, {})) {
      auto it = env.find(symbol);
      if (it != env.end()) e.sizes += (e.sizes.empty() ? "" : ", ") + symbol + "=" + std::to_string(it->second);
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace lego::studio
