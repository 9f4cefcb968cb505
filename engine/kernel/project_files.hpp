// What a project file may make the tools read: files inside the project's
// own folder or a resource folder (resources/templates), resolved through
// real paths, regular files only, each under a size cap. A project is data
// from anywhere; without these rules `"template": "/etc/shadow"` or a
// symlink planted beside the project copies any file into an export, and
// `"/dev/zero"` reads forever.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "expr/text_file.hpp"

namespace lego::kernel {

constexpr std::uintmax_t kMaxTemplateBytes = kMaxSourceBytes;  // a template, reference or baseline source

// The text of `name` (a relative path, no `..`) found in the first of
// `roots` that has it. Throws LegoError with the reason (absolute, escapes
// its folder, a link out of it, not a regular file, too large, unreadable)
// and, when no root has it, the places looked in.
std::string read_confined(const std::string& name, const std::vector<std::filesystem::path>& roots, std::uintmax_t max_bytes);

}  // namespace lego::kernel
