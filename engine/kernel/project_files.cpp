#include "kernel/project_files.hpp"

#include <fstream>
#include <sstream>

#include "expr/diagnostic.hpp"

namespace lego::kernel {
namespace fs = std::filesystem;

namespace {

std::string size_text(std::uintmax_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

// True when `path` (real) is `root` (real) or below it, compared by components.
bool inside(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p)
    if (p == path.end() || *p != *r) return false;
  return true;
}

}  // namespace

std::string read_regular_file(const fs::path& file, const std::string& what, std::uintmax_t max_bytes) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (ec || !fs::exists(status)) throw LegoError("cannot read " + what + " " + file.string() + ": it does not exist");
  if (!fs::is_regular_file(status)) throw LegoError(what + " " + file.string() + " is not a regular file");
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) throw LegoError("cannot read " + what + " " + file.string() + ": " + ec.message());
  if (size > max_bytes) throw LegoError(what + " " + file.string() + " is " + size_text(size) + "; the limit is " + size_text(max_bytes));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw LegoError("cannot read " + what + " " + file.string());
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));  // a file that shrank meanwhile
  return text;
}

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
