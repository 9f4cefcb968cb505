#include "run/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "expr/diagnostic.hpp"

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
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();

  Temporary tmp;
  std::string name = (folder / ("." + target.filename().string() + ".XXXXXX")).string();
  tmp.fd = ::mkstemp(name.data());
  if (tmp.fd < 0) fail(file, "cannot create a temporary file in " + folder.string(), errno);
  tmp.path = name;
  // mkstemp makes it 0600; an existing file keeps its mode, a new one gets 0644.
  struct stat existing {};
  const mode_t mode = ::stat(target.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;
  if (::fchmod(tmp.fd, mode) != 0) fail(file, "cannot set the mode", errno);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(tmp.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(file, "the write failed", errno);
    done += static_cast<std::size_t>(n);
  }
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

}  // namespace lego::run
