#include "expr/text_file.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>

#include "expr/diagnostic.hpp"

namespace lego {
namespace fs = std::filesystem;

std::string size_text(std::uintmax_t bytes) {
  // Whole MiB only where exact: 4.8 MB shown as "4 MiB" read as within a 4 MiB limit.
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1u << 20)) {
    char text[64];
    std::snprintf(text, sizeof text, "%.1f MiB (%ju bytes)", static_cast<double>(bytes) / (1u << 20), static_cast<std::uintmax_t>(bytes));
    return text;
  }
  return std::to_string(bytes) + " bytes";
}

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

std::string comment_text(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

}  // namespace lego
