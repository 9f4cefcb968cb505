#include "run/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "expr/diagnostic.hpp"
#include "run/fd_io.hpp"

namespace lego::run {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& what, int error) {
  throw LegoError("cannot write " + file.string() + ": " + what + (error ? std::string(": ") + std::strerror(error) : ""));
}

// Closes and removes the temporary file unless committed.
struct Temporary {
  std::string path;
  int fd = -1;
  bool committed = false;
  ~Temporary() {
    if (fd >= 0) ::close(fd);
    if (!committed && !path.empty()) ::unlink(path.c_str());
  }
};

// `target` (no link) replaced by `text` through a temporary file, with `mode`.
void replace_file(const fs::path& file, const fs::path& target, const std::string& text, mode_t mode) {
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  Temporary tmp;
  std::string name = (folder / ("." + target.filename().string() + ".XXXXXX")).string();
  tmp.fd = ::mkstemp(name.data());
  if (tmp.fd < 0) fail(file, "cannot create a temporary file in " + folder.string(), errno);
  tmp.path = name;
  if (::fchmod(tmp.fd, mode) != 0) fail(file, "cannot set the mode", errno);
  if (!write_all(tmp.fd, text.data(), text.size())) fail(file, "the write failed", errno);
  if (::fsync(tmp.fd) != 0) fail(file, "fsync failed", errno);
  if (::close(tmp.fd) != 0) {
    tmp.fd = -1;
    fail(file, "close failed", errno);
  }
  tmp.fd = -1;
  if (::rename(tmp.path.c_str(), target.c_str()) != 0) fail(file, "rename failed", errno);
  tmp.committed = true;
  // The rename is durable once the folder's entry is on disk.
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace

void write_atomically(const fs::path& file, const std::string& text) {
  std::error_code ec;
  fs::path target = file;
  if (fs::is_symlink(fs::symlink_status(file, ec))) {
    target = fs::weakly_canonical(file, ec);  // write through the link: it stays a link
    if (ec) fail(file, "cannot resolve the link", ec.value());
  }
  const fs::file_status status = fs::status(target, ec);
  if (fs::exists(status) && !fs::is_regular_file(status))
    fail(file, fs::is_directory(status) ? "it is a folder" : "it is not a regular file", 0);
  // mkstemp makes it 0600; an existing file keeps its mode, a new one gets 0644.
  struct stat existing {};
  replace_file(file, target, text, ::stat(target.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644);
}

void write_own_file_atomically(const fs::path& file, const std::string& text) {
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(file, ec))) fail(file, "it is a folder", 0);
  replace_file(file, file, text, 0600);
}

std::vector<std::string> write_folder(const std::string& folder, const std::map<std::string, std::string>& files, bool force,
                                      std::vector<std::string>* replaced) {
  namespace fs = std::filesystem;
  if (folder.empty()) throw LegoError("the output folder's name is empty; give the folder to write to");
  std::error_code ec;
  const fs::path dir(folder);
  if (fs::is_symlink(fs::symlink_status(dir, ec)))
    throw LegoError(folder + " is a link; give the folder itself (nothing is written through a link)");
  // Nor through a link among the folders above it, as typed: out/sub with
  // out a link to elsewhere would write there.
  fs::path above;
  for (const fs::path& part : dir.parent_path()) {
    above /= part;
    if (part != above.root_path() && fs::is_symlink(fs::symlink_status(above, ec)))
      throw LegoError(folder + ": " + above.string() + " is a link; give the real path (nothing is written through a link)");
  }
  std::vector<std::string> present;
  if (fs::exists(fs::symlink_status(dir, ec))) {
    if (!fs::is_directory(fs::symlink_status(dir, ec))) throw LegoError(folder + " is not a folder");
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_symlink())
        throw LegoError(folder + " holds a link, " + it->path().string() + "; nothing is written into a folder with links");
      present.push_back(fs::relative(it->path(), dir).string());
    }
    if (ec) throw LegoError("cannot read the output folder " + folder + ": " + ec.message());
    if (!present.empty() && !force) {
      std::string list;
      for (std::size_t k = 0; k < present.size() && k < 8; ++k) list += (k ? ", " : "") + present[k];
      if (present.size() > 8) list += ", ...";
      throw LegoError(folder + " is not empty (" + list + "); give an empty or new folder, or --force to replace what is there");
    }
  }
  // Every check before the first write: a file to write that is a folder
  // or a pipe would fail after the files before it were written.
  for (const auto& [name, text] : files) {
    const fs::file_status status = fs::symlink_status(dir / name, ec);
    if (fs::exists(status) && !fs::is_regular_file(status))
      throw LegoError("cannot write " + (dir / name).string() + ": " +
                      (fs::is_directory(status) ? "it is a folder" : "it is not a regular file") + "; nothing was written");
  }
  if (replaced)
    for (const auto& [name, text] : files)
      if (std::find(present.begin(), present.end(), name) != present.end()) replaced->push_back((dir / name).string());
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw LegoError("cannot create the output folder " + folder + (ec ? ": " + ec.message() : ""));
  std::vector<std::string> written;
  for (const auto& [name, text] : files) {
    write_atomically(dir / name, text);
    written.push_back((dir / name).string());
  }
  return written;
}

}  // namespace lego::run
