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

}  // namespace lego::run
