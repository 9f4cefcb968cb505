#include "kernel/project_files.hpp"

#include <fstream>
#include <sstream>

#include "expr/diagnostic.hpp"

namespace lego::kernel {
namespace fs = std::filesystem;

namespace {

// True when `path` (real) is `root` (real) or below it, compared by components.
bool inside(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p)
    if (p == path.end() || *p != *r) return false;
  return true;
}

}  // namespace

std::string read_confined(const std::string& name, const std::vector<fs::path>& roots, std::uintmax_t max_bytes) {
  const fs::path relative(name);
  if (name.empty()) throw LegoError("the file name is empty");
  if (relative.is_absolute() || relative.has_root_name())
    throw LegoError("\"" + name + "\" is an absolute path; a project names files relative to its own folder or resources/templates");
  for (const auto& part : relative)
    if (part == "..")
      throw LegoError("\"" + name + "\" leaves its folder (..); a project names files inside its own folder or resources/templates");
  std::string looked;
  for (const auto& root : roots) {
    std::error_code ec;
    const fs::path real_root = fs::canonical(root, ec);
    if (ec) continue;
    const fs::path candidate = real_root / relative;
    looked += "\n  " + candidate.string();
    if (!fs::exists(fs::symlink_status(candidate, ec))) continue;
    const fs::path real = fs::canonical(candidate, ec);
    if (ec) throw LegoError("\"" + name + "\" cannot be resolved: " + ec.message());
    if (!inside(real, real_root))
      throw LegoError("\"" + name + "\" is a link to " + real.string() + ", outside " + real_root.string() +
                      "; a project reads only files inside its folder or resources/templates");
    return read_regular_file(real, "\"" + name + "\"", max_bytes);
  }
  throw LegoError("cannot read \"" + name + "\"; looked in:" + looked);
}

}  // namespace lego::kernel
