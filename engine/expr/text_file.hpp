#pragma once
// Reading a user's file without trusting it: every tool that opens a file a
// user names (a layout program, a project, a results file) reads it here.
#include <cstdint>
#include <filesystem>
#include <string>

namespace lego {

// Documented caps (README, "What a project may read and write").
constexpr std::uintmax_t kMaxSourceBytes = 4u << 20;    // a layout program, template, reference or baseline source
constexpr std::uintmax_t kMaxProjectBytes = 64u << 20;  // a .lego.json project or a results file

// A regular file's text, refused above max_bytes (special files such as
// /dev/zero or a FIFO are refused, not read). `what` names the file in the
// error ("layout program", "project").
std::string read_regular_file(const std::filesystem::path& file, const std::string& what, std::uintmax_t max_bytes);

// "12 MiB" or "4000 bytes", for messages about sizes.
std::string size_text(std::uintmax_t bytes);

// Text for a // comment of generated code: control characters (a newline
// or a CR in a name would end the comment) become spaces.
std::string comment_text(const std::string& text);

}  // namespace lego
