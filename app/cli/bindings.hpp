// Parsing of --bind "n=8,B=2" and index lists "1,2".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.hpp"

namespace lego::cli {

// Throws LegoError naming the bad item.
Env parse_bindings(std::string_view text);
std::vector<std::int64_t> parse_index_list(std::string_view text, std::string_view option);

// "i, 3, j" -> {"i", "3", "j"}; each item must be a name or an integer.
std::vector<std::string> split_names(std::string_view text, std::string_view option);
bool parse_integer(std::string_view text, std::int64_t& value);

// --set NAME=VALUE options as bindings; LegoError for anything else.
Env parse_sets(const std::vector<std::string>& sets);

// A path where a layout's text goes (`lego check projects/p.lego.json`)
// would fail to parse at its first '/': LegoError saying it names a file.
// Layout text always holds a '(' (every function and tuple does); a path is
// anything that exists (only stat'd, never opened), or a name without one
// that ends as a project or layout file does.
// `with_file`: the command reads a layout program with --file. The message
// shows at most 200 bytes of it (LegoError escapes what a terminal would not print).
void refuse_a_path_as_layout_text(const std::string& argument, bool with_file);

}  // namespace lego::cli
