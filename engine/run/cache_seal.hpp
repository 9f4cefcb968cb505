// Cache files the tools wrote themselves, and nobody else: each is sealed
// with an HMAC-SHA256 under a per-user key kept in the cache folder (created
// on first use, mode 0600). A file planted or edited by anyone without the
// key (a project, a colleague's copy, a kernel) fails its seal and is
// ignored, so a cache can never make the tools show a result that was not
// measured here.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace lego::run {

// The sealed file's text for `text`; nullopt when no key can be made or
// read (the caller then does not cache).
std::optional<std::string> seal(const std::filesystem::path& key_folder, const std::string& text);

// The text a sealed file holds, or nullopt when its seal does not match.
std::optional<std::string> unseal(const std::filesystem::path& key_folder, const std::string& sealed);

// "" when `folder` (made 0700 if missing) is a folder of this user's that
// no other user can write, else why the cache there is not used ("... is
// writable by other users (mode 0777): chmod 700 it"). Another user who can
// write it could swap a sealed entry for another sealed entry, or read what
// a kernel left there.
std::string private_folder_problem(const std::filesystem::path& folder);

// SHA-256 of `text`, in hex: cache entries are named by it, so that no two
// keys a project can craft share a file.
std::string sha256_hex(const std::string& text);

}  // namespace lego::run
