#include "bindings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <string>
#include <system_error>

namespace lego::cli {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

bool parse_integer(std::string_view s, std::int64_t& v) {
  s = trim(s);
  const char* begin = s.data();
  if (!s.empty() && s.front() == '+') ++begin;
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() && begin != end;
}

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

}  // namespace

Env parse_bindings(std::string_view text) {
  Env env;
  if (trim(text).empty()) return env;
  for (auto item : split(text, ',')) {
    const auto eq = item.find('=');
    const std::string_view name = trim(item.substr(0, eq));
    std::int64_t value = 0;
    bool ok = eq != std::string_view::npos && !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok || !parse_integer(item.substr(eq + 1), value))
      throw LegoError("--bind: '" + std::string(trim(item)) + "' is not NAME=INTEGER (example: --bind n=8,B=2)");
    // N=4,N=8 is a typo, not a choice: the first silently lost.
    if (!env.emplace(std::string(name), value).second)
      throw LegoError("--bind: " + std::string(name) + " is given twice; give each symbol once");
  }
  return env;
}

std::vector<std::int64_t> parse_index_list(std::string_view text, std::string_view option) {
  std::vector<std::int64_t> out;
  for (auto item : split(text, ',')) {
    std::int64_t v = 0;
    if (!parse_integer(item, v))
      throw LegoError(std::string(option) + ": '" + std::string(trim(item)) + "' is not an integer (example: " + std::string(option) +
                      (option == "--inv" ? " 7)" : " 1,2)"));
    out.push_back(v);
  }
  return out;
}

}  // namespace lego::cli

namespace lego::cli {

std::vector<std::string> split_names(std::string_view text, std::string_view option) {
  std::vector<std::string> out;
  for (auto item : split(text, ',')) {
    const std::string_view t = trim(item);
    std::int64_t v = 0;
    bool name = !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
    for (char c : t) name = name && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!name && t != ":" && !parse_integer(t, v))
      throw LegoError(std::string(option) + ": '" + std::string(t) + "' is neither a name nor an integer (example: " + std::string(option) +
                      " i,j)");
    out.emplace_back(t);
  }
  return out;
}

Env parse_sets(const std::vector<std::string>& sets) {
  Env env;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw LegoError("--set expects NAME=VALUE, got \"" + s + "\"");
    try {
      std::size_t used = 0;
      env[s.substr(0, eq)] = std::stoll(s.substr(eq + 1), &used);
      if (used != s.size() - eq - 1) throw std::invalid_argument(s);
    } catch (const std::exception&) {
      throw LegoError("--set " + s + ": the value must be an integer");
    }
  }
  return env;
}

void refuse_a_path_as_layout_text(const std::string& argument, bool with_file) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(argument, ec);
  const bool exists = !ec && status.type() != std::filesystem::file_type::not_found;
  std::string lower = argument;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool file_like = argument.find('(') == std::string::npos && (lower.ends_with(".json") || lower.ends_with(".lego"));
  if (!exists && !file_like) return;
  throw LegoError(
      "'" + (argument.size() > 200 ? argument.substr(0, 200) + "..." : argument) + "' " +
      (exists ? "names a file or directory" : "looks like a file's name (there is no such file)") + ", not a layout's text" +
      (with_file ? ": a layout program (let/where definitions) goes with --file;" : " such as 'OrderBy(Row(4, 4)).GroupBy([(4, 4)])';") +
      " a project's layouts are checked when `lego bench` or `lego analyze` loads it");
}

}  // namespace lego::cli
