// JSON text edited in place: where a value sits in the file's own bytes, so
// an edit replaces or inserts only those bytes and the user's formatting,
// key order and alignment stay as written (a dump would rewrite the file:
// 49 -> 118 lines for one added layout).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace lego::project {

struct TextSpan {
  std::size_t begin = 0, end = 0;  // bytes, [begin, end)
};

struct JsonMember {
  std::string key;
  TextSpan key_span;  // the key's quotes included
  TextSpan value;
};

// An object key or an array index.
using JsonStep = std::variant<std::string, std::size_t>;

// The span of the value at `path` in `text`; nullopt when it is not there or
// the text is not JSON on the way to it.
std::optional<TextSpan> find_json_value(std::string_view text, const std::vector<JsonStep>& path);

// The members of the object at `span`, in the order written.
std::vector<JsonMember> json_members(std::string_view text, TextSpan object);

// A new member `"key": value` written into the object at `span` after its
// last member, in the object's own style: the separator between a key and
// its value copied, and on a line of its own aligned under the keys above
// (with their line's own indentation and the file's line ending) when the
// object spans lines or, with one short member, under that member.
std::string insert_json_member(std::string_view text, TextSpan object, const std::string& key_literal, const std::string& value_literal);

// The file's line ending: "\r\n" when it has one, else "\n".
std::string newline_of(std::string_view text);

// The byte column of `at` on its line.
std::size_t column_of(std::string_view text, std::size_t at);

}  // namespace lego::project
