#include "project/json_text.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace lego::project {

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t at) {
  while (at < text.size() && space(text[at])) ++at;
  return at;
}

// The end of the string literal that starts at `at` (its opening quote).
std::size_t string_end(std::string_view text, std::size_t at) {
  for (std::size_t k = at + 1; k < text.size(); ++k) {
    if (text[k] == '\\')
      ++k;
    else if (text[k] == '"')
      return k + 1;
  }
  return std::string_view::npos;
}

// The end of the value that starts at `at`; npos when the text ends first.
std::size_t value_end(std::string_view text, std::size_t at) {
  if (at >= text.size()) return std::string_view::npos;
  if (text[at] == '"') return string_end(text, at);
  if (text[at] == '{' || text[at] == '[') {
    int depth = 0;
    for (std::size_t k = at; k < text.size(); ++k) {
      const char c = text[k];
      if (c == '"') {
        k = string_end(text, k);
        if (k == std::string_view::npos) return k;
        --k;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return k + 1;
      }
    }
    return std::string_view::npos;
  }
  std::size_t k = at;
  while (k < text.size() && !space(text[k]) && text[k] != ',' && text[k] != '}' && text[k] != ']') ++k;
  return k;
}

// The elements of the array at `span`.
std::vector<TextSpan> array_elements(std::string_view text, TextSpan array) {
  std::vector<TextSpan> out;
  std::size_t at = skip_space(text, array.begin + 1);
  while (at < array.end && text[at] != ']') {
    const std::size_t end = value_end(text, at);
    if (end == std::string_view::npos || end > array.end) return {};
    out.push_back({at, end});
    at = skip_space(text, end);
    if (at < array.end && text[at] == ',') at = skip_space(text, at + 1);
  }
  return out;
}

}  // namespace

std::size_t column_of(std::string_view text, std::size_t at) {
  const std::size_t line = text.rfind('\n', at == 0 ? 0 : at - 1);
  return line == std::string_view::npos ? at : at - line - 1;
}

std::vector<JsonMember> json_members(std::string_view text, TextSpan object) {
  std::vector<JsonMember> out;
  if (object.begin >= text.size() || text[object.begin] != '{') return out;
  std::size_t at = skip_space(text, object.begin + 1);
  while (at < object.end && text[at] == '"') {
    const std::size_t key_end = string_end(text, at);
    if (key_end == std::string_view::npos) return {};
    const std::size_t colon = skip_space(text, key_end);
    if (colon >= text.size() || text[colon] != ':') return {};
    const std::size_t value = skip_space(text, colon + 1);
    const std::size_t end = value_end(text, value);
    if (end == std::string_view::npos || end > object.end) return {};
    const auto key = nlohmann::json::parse(text.substr(at, key_end - at), nullptr, false);
    if (!key.is_string()) return {};
    out.push_back({key.get<std::string>(), {at, key_end}, {value, end}});
    at = skip_space(text, end);
    if (at < object.end && text[at] == ',') at = skip_space(text, at + 1);
  }
  return out;
}

std::string newline_of(std::string_view text) { return text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n"; }

std::optional<TextSpan> find_json_value(std::string_view text, const std::vector<JsonStep>& path) {
  const std::string_view bom = "\xEF\xBB\xBF";  // a UTF-8 byte order mark before the value, which the parser skips too
  const std::size_t begin = skip_space(text, text.starts_with(bom) ? bom.size() : 0);
  const std::size_t end = value_end(text, begin);
  if (end == std::string_view::npos) return std::nullopt;
  TextSpan span{begin, end};
  for (const JsonStep& step : path) {
    if (const auto* key = std::get_if<std::string>(&step)) {
      std::optional<TextSpan> found;
      for (const JsonMember& m : json_members(text, span))
        if (m.key == *key) found = m.value;  // the last of repeated keys, as the parser keeps it
      if (!found) return std::nullopt;
      span = *found;
    } else {
      if (text[span.begin] != '[') return std::nullopt;
      const auto elements = array_elements(text, span);
      const std::size_t index = std::get<std::size_t>(step);
      if (index >= elements.size()) return std::nullopt;
      span = elements[index];
    }
  }
  return span;
}

std::string insert_json_member(std::string_view text, TextSpan object, const std::string& key_literal, const std::string& value_literal) {
  const std::vector<JsonMember> members = json_members(text, object);
  std::string out(text);
  if (members.empty()) return out.insert(object.begin + 1, key_literal + ": " + value_literal), out;
  const JsonMember& last = members.back();
  // "key": value as the object writes it, e.g. `": "` between them.
  const std::string_view between = text.substr(last.key_span.end, last.value.begin - last.key_span.end);
  const bool multiline = text.substr(object.begin, object.end - object.begin).find('\n') != std::string_view::npos;
  // Aligned under the keys: the first key on the last member's line (or
  // the one key of a short one-line object), indented as that line is
  // (its own tabs and spaces), with the file's line ending.
  std::size_t line_start = text.rfind('\n', last.key_span.begin);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  std::size_t first_on_line = last.key_span.begin;
  for (const JsonMember& m : members)
    if (m.key_span.begin >= line_start) first_on_line = std::min(first_on_line, m.key_span.begin);
  const std::string_view lead = text.substr(line_start, first_on_line - line_start);
  const bool lead_is_indent = lead.find_first_not_of(" \t") == std::string_view::npos;
  std::string separator = ", ";  // a long line (a project written on one line) stays one line
  if (multiline || (members.size() == 1 && column_of(text, first_on_line) <= 80))
    separator = "," + newline_of(text) + (lead_is_indent ? std::string(lead) : std::string(column_of(text, first_on_line), ' '));
  out.insert(last.value.end, separator + key_literal + std::string(between) + value_literal);
  return out;
}

}  // namespace lego::project
