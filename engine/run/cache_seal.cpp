#include "run/cache_seal.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace lego::run {
namespace {

constexpr std::size_t kKeyBytes = 32;
constexpr const char* kHeader = "lego-sealed hmac-sha256 ";

// The key file: made once with O_EXCL (a link planted under its name is not
// followed, and two processes racing agree on one), then read back.
std::optional<std::array<unsigned char, kKeyBytes>> key(const std::filesystem::path& folder) {
  if (!private_folder_problem(folder).empty()) return std::nullopt;
  const std::string file = (folder / "cache-key").string();
  std::array<unsigned char, kKeyBytes> bytes{};
  const int made = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (made >= 0) {
    const bool ok = getrandom(bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()) &&
                    write(made, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    close(made);
    if (!ok) {
      unlink(file.c_str());
      return std::nullopt;
    }
  }
  // O_NONBLOCK: a FIFO planted under the name would otherwise block here.
  const int fd = open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  // Only a key that is ours and private: one someone else wrote is no key.
  const bool mine = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
  const bool read_all = mine && read(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  close(fd);
  if (!read_all) return std::nullopt;
  return bytes;
}

std::string hex(const unsigned char* bytes, unsigned int length) {
  std::string text;
  char byte[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", bytes[i]);
    text += byte;
  }
  return text;
}

std::string mac(const std::array<unsigned char, kKeyBytes>& k, const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), k.data(), static_cast<int>(k.size()), reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest,
       &length);
  return hex(digest, length);
}

}  // namespace

std::string private_folder_problem(const std::filesystem::path& folder) {
  std::error_code ec;
  // Each folder made private; one that exists keeps its mode, checked below.
  if (!std::filesystem::exists(std::filesystem::symlink_status(folder, ec))) {
    std::filesystem::create_directories(folder.parent_path(), ec);
    mkdir(folder.c_str(), 0700);
  }
  struct stat st {};
  if (lstat(folder.c_str(), &st) != 0) return folder.string() + " cannot be made (" + std::strerror(errno) + ")";
  if (S_ISLNK(st.st_mode)) return folder.string() + " is a link, not a folder";
  if (!S_ISDIR(st.st_mode)) return folder.string() + " is not a folder";
  if (st.st_uid != geteuid()) return folder.string() + " belongs to another user";
  if ((st.st_mode & 022) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return folder.string() + " is writable by other users (mode " + mode + "): `chmod go-w` it";
  }
  return "";
}

std::string sha256_hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1) return {};
  return hex(digest, length);
}

std::optional<std::string> seal(const std::filesystem::path& key_folder, const std::string& text) {
  const auto k = key(key_folder);
  if (!k) return std::nullopt;
  return std::string(kHeader) + mac(*k, text) + "\n" + text;
}

std::optional<std::string> unseal(const std::filesystem::path& key_folder, const std::string& sealed) {
  const std::string header(kHeader);
  const std::size_t newline = sealed.find('\n');
  if (sealed.rfind(header, 0) != 0 || newline == std::string::npos) return std::nullopt;
  const std::string claimed = sealed.substr(header.size(), newline - header.size());
  const std::string text = sealed.substr(newline + 1);
  const auto k = key(key_folder);
  if (!k) return std::nullopt;
  const std::string expected = mac(*k, text);
  if (claimed.size() != expected.size() || CRYPTO_memcmp(claimed.data(), expected.data(), expected.size()) != 0) return std::nullopt;
  return text;
}

}  // namespace lego::run
