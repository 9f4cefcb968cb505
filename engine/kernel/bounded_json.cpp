#include "kernel/bounded_json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace lego::kernel {
namespace {

std::string at(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t k = 0; k < offset && k < text.size(); ++k) {
    if (text[k] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

bool starts_number(char c) { return (c >= '0' && c <= '9') || c == '-'; }
bool in_number(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

}  // namespace

std::string json_limit_problem(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return at(text, k) + ": nested deeper than " + std::to_string(max_depth) + " arrays and objects";
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (starts_number(c) && (k == 0 || !in_number(text[k - 1]))) {
      std::size_t end = k;
      while (end < text.size() && in_number(text[end])) ++end;
      const std::string literal(text.substr(k, end - k));
      errno = 0;
      const double value = std::strtod(literal.c_str(), nullptr);
      if (std::isinf(value))
        return at(text, k) + ": the number " + (literal.size() > 40 ? literal.substr(0, 40) + "..." : literal) +
               " is beyond the range of a double";
      k = end - 1;
    }
  }
  return "";
}

std::optional<nlohmann::json> parse_bounded_json(std::string_view text, std::size_t max_depth) {
  if (!json_limit_problem(text, max_depth).empty()) return std::nullopt;
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

nlohmann::json parse_json_or_discarded(std::string_view text, std::size_t max_depth) {
  std::optional<nlohmann::json> parsed = parse_bounded_json(text, max_depth);
  return parsed ? std::move(*parsed) : nlohmann::json(nlohmann::json::value_t::discarded);
}

nlohmann::ordered_json parse_ordered_json_or_discarded(std::string_view text, std::size_t max_depth) {
  if (!json_limit_problem(text, max_depth).empty()) return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
  return nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace lego::kernel
